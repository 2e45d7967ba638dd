"""`fixbot.agent.rancalls`: the functions a ranked Go, Rust or JS/TS function's executed lines
call, in its own file (a Go span's package), that the failing run executed too."""

from __future__ import annotations

from pathlib import Path

from fixbot.agent import context, locate, rancalls

GO = (
    "package toml\n"
    "\n"
    "func (p *parser) parseInt(s string) int64 {\n"  # 3
    "\tif isHex(s) { // helper(s)\n"  # 4
    '\t\treturn p.hex(s, "unused(")\n'  # 5
    "\t}\n"
    "\treturn never(s)\n"  # 7: not executed
    "}\n"
    "\n"
    "func isHex(s string) bool {\n"  # 10
    '\treturn len(s) > 1 && s[:2] == "0x"\n'
    "}\n"
    "\n"
    "func (p *parser) hex(s string, _ string) int64 {\n"  # 14
    "\treturn 0\n"
    "}\n"
    "\n"
    "func never(s string) int64 {\n"  # 18
    "\treturn 1\n"
    "}\n"
)
GO_OTHER = (
    "package toml\n\nfunc helper(s string) bool {\n\treturn true\n}\n\nfunc unused(s string) {\n}\n"
)
RUST = (
    "pub fn width(s: &str) -> usize {\n"  # 1
    "    if is_wide(s) { Self::double(s) } else { narrow::<u8>(s) }\n"  # 2
    "}\n"
    "\n"
    "fn is_wide(s: &str) -> bool {\n"  # 5
    "    s.len() > 2\n"
    "}\n"
    "\n"
    "fn double(s: &str) -> usize {\n"  # 9
    "    2\n"
    "}\n"
    "\n"
    "fn narrow<T>(s: &str) -> usize {\n"  # 13
    "    1\n"
    "}\n"
)
TS = (
    "export function issue(ctx: Ctx): string {\n"  # 1
    "  const msg = `a ${x}` + format(ctx) // ignored(ctx)\n"  # 2
    "  return this.pick(ctx, 'unused(')\n"  # 3
    "}\n"
    "\n"
    "const format = (ctx: Ctx): string => {\n"  # 6
    '  if (ctx.a) { return "{" }\n'  # 7
    "  return ctx.b\n"  # 8
    "}\n"
    "\n"
    "class Map {\n"  # 11
    "  private pick(ctx: Ctx, _: string): string {\n"  # 12
    "    return ctx.c\n"  # 13
    "  }\n"
    "}\n"
    "function ignored(ctx) {\n"  # 16
    "  return 1\n"
    "}\n"
)


def _found(repo: Path, span: locate.Span, ran: dict[str, frozenset[int]]) -> list[tuple]:
    return [
        (s.path, s.name, s.start, s.end, s.focus) for s in rancalls.ran_callees(repo, span, ran)
    ]


def test_a_go_suspects_executed_calls_resolve_in_its_package_to_functions_that_ran(
    tmp_path: Path,
) -> None:
    """go-toml's shape: the ranked `parseInt`'s executed line 4 calls `isHex` (bare) and line 5
    `p.hex` (a method); both ran. `never` is called on line 7, not executed; `helper` and
    `unused` (another file of the package) are only named in a comment and a string; a test
    file's function is not the package's."""
    (tmp_path / "parser.go").write_text(GO)
    (tmp_path / "other.go").write_text(GO_OTHER)
    (tmp_path / "parser_test.go").write_text("package toml\n\nfunc isHex(s string) bool {\n}\n")
    ran = {
        "parser.go": frozenset({4, 5, 11, 15, 19}),
        "other.go": frozenset({4, 8}),
        "parser_test.go": frozenset({3}),
    }
    span = locate.Span("parser.go", 3, 8, "parseInt", 1.0)
    assert _found(tmp_path, span, ran) == [
        ("parser.go", "isHex", 10, 12, (11,)),
        ("parser.go", "hex", 14, 16, (15,)),
    ]
    assert _found(tmp_path, span, {"parser.go": frozenset({4, 5})}) == []  # neither ran
    (tmp_path / "parser.go").write_text(GO.replace("isHex(s) {", "isHex(s) || helper(s) {"))
    assert [f[1] for f in _found(tmp_path, span, ran)] == ["isHex", "helper", "hex"]


def test_a_rust_suspects_executed_calls_resolve_to_the_files_functions_that_ran(
    tmp_path: Path,
) -> None:
    """`is_wide(s)`, `Self::double(s)` and `narrow::<u8>(s)` on the executed line 2, in the
    order written; at most `RAN_CALLEES`; not `width` itself."""
    (tmp_path / "lib.rs").write_text(RUST.replace("narrow::<u8>(s)", "narrow::<u8>(s) + width(s)"))
    ran = {"lib.rs": frozenset({2, 6, 10, 14})}
    span = locate.Span("lib.rs", 1, 3, "width", 1.0)
    assert [f[1:4] for f in _found(tmp_path, span, ran)] == [
        ("is_wide", 5, 7),
        ("double", 9, 11),
        ("narrow", 13, 15),
    ]
    assert _found(tmp_path, span, {"lib.rs": frozenset({6, 10, 14})}) == []  # line 2 did not run


def test_a_function_nested_in_the_suspect_is_not_shown_again_as_its_callee(tmp_path: Path) -> None:
    """A Rust `fn` defined inside the suspect's body and called there is in the span the
    request already shows: it is no callee of its own."""
    nested = RUST.replace(
        "pub fn width(s: &str) -> usize {\n",
        "pub fn width(s: &str) -> usize {\n"
        "    fn inner(s: &str) -> usize {\n        3\n    }\n    let _ = inner(s);\n",
        1,
    )
    (tmp_path / "lib.rs").write_text(nested)
    span = locate.Span("lib.rs", 1, 7, "width", 1.0)  # lines 2-4 `inner`, 5 its call, 6 line 2's
    ran = {"lib.rs": frozenset({3, 5, 6, 10, 14, 18})}
    assert [f[1] for f in _found(tmp_path, span, ran)] == ["is_wide", "double", "narrow"]


def test_a_ts_suspects_executed_calls_resolve_to_its_functions_arrows_and_methods(
    tmp_path: Path,
) -> None:
    """`format` (a `const` arrow whose body holds a `"{"` string) and `this.pick` (a method);
    `ignored` is only named in a comment, and a string's `unused(` is no call."""
    (tmp_path / "issue.ts").write_text(TS)
    assert rancalls.js_functions(TS) == [
        ("issue", 1, 4),
        ("format", 6, 9),
        ("pick", 12, 14),
        ("ignored", 16, 18),
    ]
    ran = {"issue.ts": frozenset({2, 3, 7, 8, 13, 17})}
    span = locate.Span("issue.ts", 1, 4, "issue", 1.0)
    assert _found(tmp_path, span, ran) == [
        ("issue.ts", "format", 6, 9, (7, 8)),
        ("issue.ts", "pick", 12, 14, (13,)),
    ]


def test_a_go_suspects_ran_callee_is_shown_among_the_spectrums_first(tmp_path: Path) -> None:
    """Through `context._ran_callees`: a Go span's callee that ran and the spectrum ranks
    nowhere follows the first three; one the spectrum ranks is not repeated."""
    (tmp_path / "parser.go").write_text(GO)
    ran = {"parser.go": frozenset({4, 5, 11, 15})}
    parse_int = locate.Span("parser.go", 3, 8, "parseInt", 1.0)
    hex_ranked = locate.Span("parser.go", 14, 16, "hex", 0.5)
    found = context._ran_callees(tmp_path, locate.Ranked([parse_int, hex_ranked], ran))
    assert [(s.name, s.start) for s in found] == [("isHex", 10)]


def test_a_js_files_assigned_and_object_literal_functions_are_read_and_an_unclosed_one_is_cut(
    tmp_path: Path,
) -> None:
    """CommonJS's shapes: `exports.f = function`, `Foo.prototype.g = function`, an object
    literal's `h: function (` and `k: (x) =>`; `names` keeps those called; a function whose
    braces never close ends `JS_MAX_LINES` on, not at the file's end."""
    js = (
        "exports.parse = function (s) {\n"  # 1
        "  return helpers.split(s) + Box.prototype.size(s)\n"
        "};\n"
        "Box.prototype.size = function size(s) {\n"  # 4
        "  return 1\n"
        "};\n"
        "var helpers = {\n"
        "  split: function (s) {\n"  # 8
        "    return [s]\n"
        "  },\n"
        "  join: (xs) => {\n"  # 11
        "    return xs\n"
        "  },\n"
        "};\n"
    )
    assert rancalls.js_functions(js) == [
        ("parse", 1, 3),
        ("size", 4, 6),
        ("split", 8, 10),
        ("join", 11, 13),
    ]
    assert rancalls.js_functions(js, frozenset({"split"})) == [("split", 8, 10)]
    (tmp_path / "index.js").write_text(js)
    ran = {"index.js": frozenset({2, 5, 9})}
    found = _found(tmp_path, locate.Span("index.js", 1, 3, "parse", 1.0), ran)
    assert [f[1] for f in found] == ["split", "size"]
    unclosed = "function open() {\n" + "  x()\n" * (rancalls.JS_MAX_LINES + 50)
    assert rancalls.js_functions(unclosed) == [("open", 1, rancalls.JS_MAX_LINES)]
