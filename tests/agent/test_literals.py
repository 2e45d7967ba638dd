"""The source lines holding a message the failing output quotes (pure reading)."""

from __future__ import annotations

from pathlib import Path

from fixbot.agent import context, literals, locate
from fixbot.agent.locate import Span
from tests.fakes.agent_repo import failure, fix_context, make_repo

# zod 4.3.6's shape: the snapshot's diff quotes the note `core/schemas.ts` pushes and the
# message `locales/en.ts` holds; the test file quotes them too, and the build is generated
SCHEMAS = (
    "export function discriminated(payload, ctx) {\n"  # 1
    + "".join(f"  const step{k} = ctx.value + {k};\n" for k in range(30))
    + "  payload.issues.push({\n"  # 32
    + '    code: "invalid_union",\n'  # 33
    + '    note: "No matching discriminator",\n'  # 34
    + "    input: ctx.value,\n"
    + "  });\n"
    + "}\n"
)
EN = (
    "export const error = (issue) => {\n"
    "  switch (issue.code) {\n"
    '    case "invalid_union":\n'
    '      return "Invalid input";\n'  # 4
    "  }\n"
    "};\n"
)
TEST = 'expect(r.error).toMatchInlineSnapshot(`"No matching discriminator"`);\n'
LOG = (
    "FAIL src/tests/discriminated-unions.test.ts > invalid discriminator value\n"
    "Error: Snapshot `invalid discriminator value 1` mismatched\n"
    '-     "note": "No matching discriminator",\n'
    '+     "message": "Invalid input",\n'
    '+     "options": ["a", "b"],\n'
    "  > src/tests/discriminated-unions.test.ts:12:22\n"
)
FILES = {
    "src/core/schemas.ts": SCHEMAS,
    "src/locales/en.ts": EN,
    "src/tests/discriminated-unions.test.ts": TEST,
    "dist/core/schemas.js": 'const note = "No matching discriminator";\n',
    "src/mentions.ts": "// No matching discriminator, said in a comment\n",
}


def test_the_phrases_an_output_quotes_are_a_few_words_each() -> None:
    """Quoted text of two words and more, and an error message's words before its first
    value; single words ("note", "a") and bare values are no phrase."""
    assert literals.phrases(LOG) == [
        "invalid discriminator value 1",
        "invalid discriminator value",
        "No matching discriminator",
        "Invalid input",
    ]  # not "Snapshot", the error's one word before its first value
    assert literals.phrases("ValueError: Unknown option: 'fast'\n") == ["Unknown option"]
    assert literals.phrases('got "x", want "y"; "ab cd"\n') == []


def test_the_source_lines_holding_a_quoted_message_are_found(tmp_path: Path) -> None:
    """Both literals are found where the code holds them; not in the test file, the generated
    build or a comment."""
    repo = make_repo(tmp_path, FILES)
    found = literals.spans(repo, LOG)
    assert [(s.path, s.focus) for s in found] == [
        ("src/core/schemas.ts", (34,)),
        ("src/locales/en.ts", (4,)),
    ]
    assert found[0].name == 'holds "No matching discriminator"'
    assert (found[0].start, found[0].end) == (30, 38)


def test_a_phrase_on_many_lines_names_no_place(tmp_path: Path) -> None:
    many = "".join(f'const m{k} = "Invalid input";\n' for k in range(literals.MAX_HOLDERS + 1))
    repo = make_repo(tmp_path, {**FILES, "src/locales/en.ts": many})
    assert [s.path for s in literals.spans(repo, LOG)] == ["src/core/schemas.ts"]


# zod 4.3.6's "Invalid input": the old API's locale (never run by the failing test) holds it on
# more lines than `MAX_HOLDERS`, ahead in git's order of the locale the fix changes
OLD_EN = "".join(f'  const m{k} = "Invalid input";\n' for k in range(literals.MAX_HOLDERS + 1))
NEW_EN = (
    "export const error = (issue) => {\n"  # 1
    + "  switch (issue.code) {\n"
    + "".join(f'    case "code_{k}":\n      return "message {k}";\n' for k in range(20))
    + '    case "invalid_union":\n'  # 43
    + '      return "Invalid input";\n'  # 44
    + "  }\n"
    + "};\n"
)
MANY = {**FILES, "src/locales/en.ts": NEW_EN, "src/a-old/locales/en.ts": OLD_EN}


def test_a_phrase_on_many_lines_is_narrowed_to_the_reached_files(tmp_path: Path) -> None:
    """Too many lines in all, one in a file the failing run reached: that one is shown; not
    reached, or too many lines in the reached files too, the phrase names no place."""
    repo = make_repo(tmp_path, MANY)
    reached = ["src/locales/en.ts", "src/tests/discriminated-unions.test.ts"]
    found = literals.spans(repo, LOG, reached=reached)
    assert [(s.path, s.focus) for s in found] == [
        ("src/core/schemas.ts", (34,)),
        ("src/locales/en.ts", (44,)),
    ]
    assert [s.path for s in literals.spans(repo, LOG)] == ["src/core/schemas.ts"]
    both = [*reached, "src/a-old/locales/en.ts"]  # 8 lines in the reached files: too many
    assert [s.path for s in literals.spans(repo, LOG, reached=both)] == ["src/core/schemas.ts"]


def test_the_reached_file_is_read_past_the_phrase_s_first_places(tmp_path: Path) -> None:
    """The reached file's lines are found though the phrase's first `MAX_HOLDERS + 1` places,
    in git's order, are all in the other file."""
    repo = make_repo(tmp_path, MANY)
    found = literals.holders(repo, ["Invalid input"], reached=["src/locales/en.ts"])
    assert found["Invalid input"][-1] == ("src/locales/en.ts", 44)
    assert len(found["Invalid input"]) == literals.MAX_HOLDERS + 2
    assert literals.narrowed(found["Invalid input"], ["src/locales/en.ts"]) == [
        ("src/locales/en.ts", 44)
    ]


def test_the_first_request_narrows_a_common_phrase_to_the_spectrum_s_files(
    tmp_path: Path,
) -> None:
    """The spectrum ranked the locale's first function (lines 1-2), not its line 44: the first
    request shows line 44, the one line of the over-common phrase in a reached file; the old
    API's locale is not shown."""
    repo = make_repo(tmp_path, MANY)
    ctx = fix_context(repo, failure=failure(LOG))
    suspect = Span("src/locales/en.ts", 1, 2, "error", 0.9)
    shown = context.gather(ctx, 6_000, [suspect]).reached
    assert '   44|       return "Invalid input";' in shown
    assert "const m0" not in shown
    assert "   44|" not in context.gather(ctx, 6_000).reached  # not reached: dropped as before


def test_the_first_request_shows_the_line_holding_the_quoted_message(tmp_path: Path) -> None:
    """The first request shows the line the fix changes, which no spectrum ranked: without
    `literals` neither literal's line is shown."""
    repo = make_repo(tmp_path, FILES)
    ctx = fix_context(repo, failure=failure(LOG))
    shown = context.gather(ctx, 6_000).reached
    assert 'note: "No matching discriminator",' in shown
    assert 'return "Invalid input";' in shown
    assert "const note" not in shown  # the build is not shown


def test_a_build_committed_beside_its_typescript_source_is_not_read(tmp_path: Path) -> None:
    """zod's tarball commits its compiled output beside `src/` (`v4/core/schemas.cjs` and `.js`
    of `src/v4/core/schemas.ts`), outside any folder `generated` names: its copies of the
    literal are not shown, and do not take the spans the other phrase's line needs."""
    build = {
        "core/schemas.cjs": 'exports.note = "No matching discriminator";\n',
        "core/schemas.js": 'export const note = "No matching discriminator";\n',
        "core/extra.js": 'export const note = "No matching discriminator";\n',
    }
    repo = make_repo(tmp_path, {**FILES, **build})
    found = literals.spans(repo, LOG)
    assert [s.path for s in found] == [
        "core/extra.js",  # JavaScript with no TypeScript source of its name: read
        "src/core/schemas.ts",
        "src/locales/en.ts",
    ]


def test_a_javascript_file_is_a_build_when_a_typescript_file_maps_to_it() -> None:
    """Beside its source, or under another first folder (tsc's `rootDir`, `outDir`), or a root
    file of a first folder's source; not a deeper file's namesake, not another package's file,
    not of a declaration file."""
    names = [
        *("a.ts", "a.js", "src/v4/core/schemas.ts", "v4/core/schemas.cjs", "v4/core/schemas.mjs"),
        *("src/index.ts", "index.js", "lib/util.js", "src/util.tsx"),
        *("src/v4/mini/parse.ts", "parse.js", "packages/one/main.ts", "packages/two/main.js"),
        *("types/only.d.ts", "only.js", "types/only.js", "plain.js"),
    ]
    assert literals.built(names) == {
        *("a.js", "v4/core/schemas.cjs", "v4/core/schemas.mjs", "index.js", "lib/util.js"),
    }


# zod 4.3.6's locale: "Invalid input" on more than `MAX_HOLDERS` lines of the one file the fix
# changes (its cases' template messages, its `default`), of which the failing run executed one
RAN_EN = (
    "export const error = (issue) => {\n"  # 1
    + "  switch (issue.code) {\n"
    + "".join(f'    case "code_{k}":\n      return "Invalid input {k}";\n' for k in range(8))
    + '    case "invalid_union":\n'  # 19
    + '      return "Invalid input";\n'  # 20
    + "    default:\n"
    + '      return "Invalid input";\n'  # 22
    + "  }\n"
    + "};\n"
)
RAN = {**MANY, "src/locales/en.ts": RAN_EN}


def test_a_phrase_on_many_lines_is_narrowed_to_the_lines_the_run_executed(tmp_path: Path) -> None:
    """Ten lines in the reached locale alone, too many for the reached files' rule: the one the
    failing run executed (line 20) is shown; with no line executed, the rule before holds."""
    repo = make_repo(tmp_path, RAN)
    reached = ["src/locales/en.ts"]
    ran = {"src/locales/en.ts": frozenset({1, 2, 19, 20}), "src/core/schemas.ts": frozenset({34})}
    found = literals.spans(repo, LOG, reached=reached, executed=ran)
    assert [(s.path, s.focus) for s in found] == [
        ("src/core/schemas.ts", (34,)),
        ("src/locales/en.ts", (20,)),
    ]
    assert [s.path for s in literals.spans(repo, LOG, reached=reached)] == ["src/core/schemas.ts"]
    none = {"src/locales/en.ts": frozenset({1, 2})}
    assert [s.path for s in literals.spans(repo, LOG, executed=none)] == ["src/core/schemas.ts"]
    places = [(f"src/a{k}.ts", 1) for k in range(literals.MAX_HOLDERS + 2)]
    every = {path: frozenset({1}) for path, _ in places}  # all executed: too many still
    assert literals.narrowed(places, [], every) == []


def test_the_first_request_narrows_a_common_phrase_to_the_lines_the_spectrum_ran(
    tmp_path: Path,
) -> None:
    """The spectrum ranked the locale's function and recorded the lines its run executed
    (`locate.Ranked`): the first request shows line 20, the `case` that ran, not the `default`
    beside it; a spectrum with no executed lines shows neither."""
    repo = make_repo(tmp_path, RAN)
    ctx = fix_context(repo, failure=failure(LOG))
    suspect = Span("src/locales/en.ts", 1, 2, "error", 0.9)
    ran = locate.Ranked([suspect], {"src/locales/en.ts": frozenset({1, 2, 19, 20})})
    shown = context.gather(ctx, 6_000, ran).reached
    assert '   20|       return "Invalid input";' in shown
    assert shown.count('(holds "Invalid input")') == 1  # not the default's line 22, never run
    assert "   20|" not in context.gather(ctx, 6_000, [suspect]).reached
