"""The TypeScript declaration of an object a failing diff expects a new key of (pure reading)."""

from __future__ import annotations

from pathlib import Path

from fixbot.agent import context, literals, shapes
from tests.fakes.agent_repo import failure, fix_context, make_repo

# zod 4.3.6's shape: the snapshot expects `options` beside the issue's other keys; the issue's
# interface declares `discriminator` and `errors`, which few others do, and the base every
# issue extends declares `code`, `path` and `message`, which many do
ERRORS = (
    "export interface $ZodIssueBase {\n"  # 1
    "  readonly code?: string;\n"
    "  readonly path: PropertyKey[];\n"
    "  readonly message: string;\n"
    "}\n"  # 5
    "\n"
    "export interface $ZodIssueTooBig extends $ZodIssueBase {\n"  # 7
    '  readonly code: "too_big";\n'
    "  readonly maximum: number;\n"
    "}\n"  # 10
    "\n"
    "interface $ZodIssueInvalidUnionNoMatch extends $ZodIssueBase {\n"  # 12
    '  readonly code: "invalid_union";\n'
    "  readonly errors: $ZodIssue[][];\n"
    "  readonly discriminator?: string | undefined;\n"  # 15: the fix adds `options` below
    "}\n"  # 16
    "\n"
    "export type Options = {\n"  # 18: already declares `options`: nothing to add there
    '  code: "invalid_union";\n'
    "  errors: string[];\n"
    "  discriminator: string;\n"
    "  options: string[];\n"
    "};\n"
)
SCHEMAS = (
    "export function discriminated(payload, def) {\n"
    '  payload.issues.push({ code: "invalid_union", errors: [], note: "none" });\n'
    "}\n"
)
LOG = (
    "FAIL  src/tests/discriminated-unions.test.ts > invalid discriminator value\n"
    "Error: Snapshot `invalid discriminator value 1` mismatched\n"
    "\n"
    "- Expected\n"
    "+ Received\n"
    "\n"
    "@@ -3,17 +3,13 @@\n"
    "    {\n"
    '      "code": "invalid_union",\n'
    '      "errors": [],\n'
    '      "note": "No matching discriminator",\n'
    '      "discriminator": "type",\n'
    '-     "options": [\n'
    '-       "a",\n'
    '-       "b"\n'
    "-     ],\n"
    '      "path": [\n'
    '        "type"\n'
    "      ],\n"
    "-     \"message\": \"Invalid discriminator value. Expected 'a' | 'b'\"\n"
    '+     "message": "Invalid input"\n'
    "    }\n"
    "\n"
    " > src/tests/discriminated-unions.test.ts:153:18\n"
)
FILES = {
    "src/core/errors.ts": ERRORS,
    "src/core/schemas.ts": SCHEMAS,
    "src/tests/discriminated-unions.test.ts": 'test("x", () => {});\n',
    # the tarball's build of errors.ts: its copy of the interface is not shown
    "v4/core/errors.d.ts": ERRORS,
}


def test_a_key_on_the_expected_side_only_joins_its_siblings_at_its_indentation() -> None:
    """`options` is on `-` lines only; `message` on both sides and `"a"` not a key line; its
    siblings are the keys at its indentation, each with the string it shows."""
    assert shapes.expected_keys(LOG) == {
        "options": {
            "code": "invalid_union",
            "errors": "",
            "note": "No matching discriminator",
            "discriminator": "type",
            "path": "",
            "message": "Invalid input",  # the last line showing it
        }
    }
    assert shapes.expected_keys(LOG.replace('-     "options"', '+     "options"')) == {}
    assert shapes.expected_keys("no diff here\n") == {}


def test_the_interface_declaring_the_rare_siblings_is_shown_at_its_end(tmp_path: Path) -> None:
    """The interface tagged `code: "invalid_union"`, as the diff's `"code"` shows it, and
    declaring `errors` and `discriminator` is shown; not the base declaring `code`, `path` and
    `message` (more siblings by weight: each declared by one or few blocks), nor the type
    tagged alike that already declares `options`, nor the build's copy of the interface."""
    repo = make_repo(tmp_path, FILES)
    found = shapes.spans(repo, LOG)
    assert [(s.path, s.start, s.end, s.focus) for s in found] == [
        ("src/core/errors.ts", 12, 16, (16,))
    ]
    assert found[0].name.startswith("$ZodIssueInvalidUnionNoMatch")
    assert literals.typescript(repo) == ["src/core/errors.ts", "src/core/schemas.ts"]


def test_the_first_request_shows_the_interface_the_expected_key_joins(tmp_path: Path) -> None:
    """No run executes a declaration and no message names it: without `shapes` the first
    request shows no line of the interface the fix extends."""
    repo = make_repo(tmp_path, FILES)
    shown = context.gather(fix_context(repo, failure=failure(LOG)), 6_000).reached
    assert "interface $ZodIssueInvalidUnionNoMatch extends $ZodIssueBase {" in shown
    assert "readonly discriminator?: string | undefined;" in shown
    assert "--- v4/core/errors.d.ts" not in shown


def test_a_block_declaring_one_sibling_or_none_is_not_shown(tmp_path: Path) -> None:
    """One shared key is no shape: `MIN_SHARED`; a repository without TypeScript gives none."""
    repo = make_repo(tmp_path, {"src/a.ts": "export interface A {\n  code: string;\n}\n"})
    assert shapes.spans(repo, LOG) == []
    assert shapes.spans(make_repo(tmp_path / "js", {"a.js": "x;\n"}), LOG) == []


def test_without_a_tag_the_rarer_siblings_decide() -> None:
    """Two blocks declaring as many siblings: the one declaring the keys fewer blocks declare
    scores higher; a tag (the literal type of a shown string) outranks any weight."""
    siblings = {"code": "invalid_union", "errors": "", "path": "", "discriminator": ""}
    holders = {"code": 60, "path": 24, "errors": 6, "discriminator": 6}
    base = shapes.score(siblings, {"code": "", "path": ""}, holders)
    union = shapes.score(siblings, {"errors": "", "discriminator": ""}, holders)
    tagged = shapes.score(siblings, {"code": "invalid_union", "path": ""}, holders)
    assert base < union < tagged
    assert union == (0, round(2 / 6, 9))
