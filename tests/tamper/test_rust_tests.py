"""A Rust unit test in the code's own file is a test (`fixbot.tamper.rusttests`), its regions
read by Rust's tokens (`fixbot.ecosystems.rust.unit_test_regions`); the code beside them that
decides their verdict (`fixbot.tamper.rustasserts`) is the tests' too."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixbot.ecosystems.rust import blank, tokens, unit_test_regions
from fixbot.tamper.changes import Change
from fixbot.tamper.rustasserts import functions, guarded, helpers
from fixbot.tamper.rusttests import (
    added_only,
    changed,
    declared,
    declarers,
    detect,
    doc_tests,
    parents,
    regions,
    restored,
)
from fixbot.tamper.rustverdict import always_equal, shadowing

APP = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"
TESTS = """
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 2), 4);
    }
}
"""
LIB = APP + TESTS


def rule(old: str | None, new: str | None, path: str = "src/lib.rs") -> list[str]:
    return [str(cheat) for cheat in detect([Change(path, old, new)])]


def test_the_expected_value_edited_in_the_test_module_is_a_test_change() -> None:
    cheated = LIB.replace("add(2, 2), 4", "add(2, 2), 0")
    [found] = detect([Change("src/lib.rs", LIB, cheated)])
    assert (found.rule, found.path) == ("rust-test-changed", "src/lib.rs")
    assert str(found).endswith(": a Rust test in the code's file changed: tests")


def test_the_code_beside_the_tests_changed_is_the_codes() -> None:
    assert rule(LIB, LIB.replace("a - b", "a + b")) == []
    # a comment or the layout changed inside the tests is no change of them
    commented = LIB.replace("    use super::*;", "    // the unit\n    use   super :: * ;")
    assert rule(LIB, commented) == []


def test_a_test_region_taken_away_or_unmarked_is_a_test_change() -> None:
    assert rule(LIB, APP) != []  # the module deleted
    assert rule(LIB, LIB.replace("#[cfg(test)]", "#[cfg(not(test))]")) != []
    assert rule(LIB, LIB.replace("    #[test]\n", "")) != []  # `adds` no test any more
    assert rule(LIB, None) != []  # the file deleted, and its tests with it
    # a helper added inside the module is a change of it, not a test added
    assert rule(LIB, LIB.replace("    use super::*;\n", "    use super::*;\n    fn h() {}\n"))


MORE = "    #[test]\n    fn adds_more() {\n        assert_eq!(add(1, 2), 3);\n    }\n}\n"
GROWN = LIB.removesuffix("}\n") + "\n" + MORE


def test_tests_only_added_are_checked_with_the_start_regions_put_back() -> None:
    """No finding: the deciding check runs on the fix's code with the start's test regions
    (`added_only`), which the fix's own tests cannot weaken."""
    fixed = GROWN.replace("a - b", "a + b")
    assert rule(LIB, fixed) == []
    assert added_only(Change("src/lib.rs", LIB, fixed)) == LIB.replace("a - b", "a + b")
    # a region of its own, in a file that had none, or a new file
    assert rule(APP, LIB) == [] and added_only(Change("src/lib.rs", APP, LIB)) == APP + "\n\n"
    assert added_only(Change("src/new.rs", None, TESTS)) == "\n\n"
    # an item that weakens the start's tests, only added: taken out for the deciding check
    shadow = "#[cfg(test)]\nmacro_rules! assert_eq {\n    ($($t:tt)*) => {};\n}\n"
    assert added_only(Change("src/lib.rs", LIB, shadow + LIB)) == "\n" + LIB
    # one of the start's tests changed beside the added one: no region put back, a finding
    changed_too = GROWN.replace("add(2, 2), 4", "add(2, 2), 0")
    assert added_only(Change("src/lib.rs", LIB, changed_too)) is None
    assert rule(LIB, changed_too) != []
    # nothing added: nothing to put back
    assert restored(LIB, LIB.replace("a - b", "a + b")) is None
    assert added_only(Change("tests/api.rs", LIB, GROWN)) is None


def test_an_ignore_before_the_test_attribute_is_part_of_the_test() -> None:
    source = APP + "#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n"
    skipped = source.replace("#[test]", "#[ignore]\n#[test]")
    assert rule(source, skipped) == [
        "rust-test-changed in src/lib.rs: a Rust test in the code's file changed: adds"
    ]


def test_a_runtimes_test_attribute_marks_a_test() -> None:
    source = APP + "#[tokio::test]\nasync fn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n"
    assert [name for name, _ in regions(source)] == ["adds"]
    assert rule(source, source.replace("), 4)", "), 0)")) != []
    for marker in ("#[rstest]", "#[async_std::test]", "#[test_case(2, 4)]"):
        assert [n for n, _ in regions(source.replace("#[tokio::test]", marker))] == ["adds"]
    # not a test's attributes
    for other in ("#[inline]", "#[cfg_attr(test, derive(Debug))]", "#[latest]"):
        assert regions(source.replace("#[tokio::test]", other)) == []


def test_an_inner_cfg_test_makes_the_whole_file_a_test() -> None:
    source = "#![cfg(test)]\nuse super::*;\n\nfn helper() -> i32 {\n    4\n}\n"
    assert unit_test_regions(source) == [(0, len(source))]
    assert rule(source, source.replace("4", "0"), "src/tests.rs") != []


def test_a_file_under_tests_is_left_to_the_rules_of_the_tests() -> None:
    cheated = LIB.replace("add(2, 2), 4", "add(2, 2), 0")
    assert changed(Change("tests/api.rs", LIB, cheated)) is None
    assert changed(Change("src/lib.py", LIB, cheated)) is None


DECLARING = APP + "\n#[cfg(test)]\nmod tests;\n"
# the tests' module in a file of its own: its helper holds the expected value, outside any
# `#[test]` function
MODULE = """\
use super::*;

fn expected() -> i32 {
    4
}

#[test]
fn adds() {
    assert_eq!(add(2, 2), expected());
}
"""


def test_a_module_file_declared_in_a_test_region_is_a_test_whole() -> None:
    cheated = MODULE.replace("    4\n", "    0\n")
    [found] = detect([Change("src/tests.rs", MODULE, cheated)], {"src/lib.rs": DECLARING})
    assert str(found).endswith("changed: the whole file"), found
    # src/tests/mod.rs is under a `tests` folder: a test file, the rules of the tests judge it
    assert declared("src/tests/mod.rs", {"src/main.rs": DECLARING})
    # without the start's declaration the helper is the code's (the `#[test]` alone is a test)
    assert detect([Change("src/tests.rs", MODULE, cheated)]) == []
    plain = DECLARING.replace("#[cfg(test)]\n", "")
    assert detect([Change("src/tests.rs", MODULE, cheated)], {"src/lib.rs": plain}) == []
    assert not declared("src/other.rs", {"src/lib.rs": DECLARING})
    assert parents("src/a/tests/mod.rs") == [
        "src/a/mod.rs",
        "src/a/lib.rs",
        "src/a/main.rs",
        "src/a.rs",
    ]
    assert parents("src/lib.rs") == [] and parents("src/app.py") == []


def test_a_module_file_named_by_a_path_in_a_test_region_is_a_test_whole() -> None:
    """Round 23: `#[cfg(test)] #[path = "checks.rs"] mod tests;` (or an `include!` in a test
    region) makes the file it names the tests', though no `mod checks;` declares it."""
    cheated = MODULE.replace("    4\n", "    0\n")
    pathed = LIB + '#[cfg(test)]\n#[path = "checks.rs"]\nmod tests;\n'
    [found] = detect([Change("src/checks.rs", MODULE, cheated)], {"src/lib.rs": pathed})
    assert str(found).endswith("changed: the whole file"), found
    included = LIB + '#[cfg(test)]\nmod tests {\n    include!("../cases/adds.rs");\n}\n'
    assert declared("cases/adds.rs", {"src/lib.rs": included})
    # a path outside a test region is the code's; another file's path names no other
    assert not declared("src/checks.rs", {"src/lib.rs": pathed.replace("#[cfg(test)]\n", "")})
    assert not declared("src/other.rs", {"src/lib.rs": pathed})
    variable = (
        LIB + '#[cfg(test)]\nmod tests {\n    fn f() {\n        let path = "data.rs";\n    }\n}\n'
    )
    assert not declared("src/data.rs", {"src/lib.rs": variable})
    listed = ["src/lib.rs", "src/a/b.rs", "src/checks.rs", "build.rs", "tests/it.rs", "x.py"]
    assert declarers(["src/checks.rs"], listed) == ["build.rs", "src/checks.rs", "src/lib.rs"]


def test_a_path_given_by_cfg_attr_names_the_tests_module() -> None:
    """Round 25: `#[cfg_attr(test, path = "checks.rs")]` names the tests' module as `#[path]`
    does (the path an argument after a `,`, not the attribute's first word)."""
    cheated = MODULE.replace("    4\n", "    0\n")
    given = LIB + '#[cfg(test)]\n#[cfg_attr(all(test, unix), path = "checks.rs")]\nmod tests;\n'
    [found] = detect([Change("src/checks.rs", MODULE, cheated)], {"src/lib.rs": given})
    assert str(found).endswith("changed: the whole file"), found


def test_a_file_included_by_a_concatenated_path_is_a_test_whole() -> None:
    """Round 25: `include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/checks.rs"))` in a test
    region names src/checks.rs from the crate's folder (the one above `src/`); a `concat!` of
    literals alone names it from the including file's folder, as `include!` does."""
    cheated = MODULE.replace("    4\n", "    0\n")
    joined = 'concat!(env!("CARGO_MANIFEST_DIR"), "/src/", "checks.rs")'
    including = LIB + f"#[cfg(test)]\nmod tests {{\n    include!({joined});\n}}\n"
    for root in ("", "crates/a/"):
        changed = Change(f"{root}src/checks.rs", MODULE, cheated)
        [found] = detect([changed], {f"{root}src/lib.rs": including})
        assert str(found).endswith("changed: the whole file"), found
    literals = including.replace(joined, 'concat!("che", "cks.rs")')
    assert declared("src/checks.rs", {"src/lib.rs": literals})
    assert not declared("src/other.rs", {"src/lib.rs": including})


ALWAYS_EQUAL = """\
#[derive(Debug)]
pub struct Sum(i32);

impl PartialEq<i32> for Sum {
    fn eq(&self, _other: &i32) -> bool {
        true
    }
}
"""


def test_an_eq_true_for_any_operand_is_always_equal() -> None:
    """Round 23: `add` handed back a `Sum` whose `PartialEq<i32>` is always true."""
    [found] = detect([Change("src/lib.rs", LIB, ALWAYS_EQUAL + LIB)])
    assert (found.rule, found.path) == ("always-equal", "src/lib.rs")
    assert always_equal("fn ne(&self, o: &Self) -> bool { return false; }\n") == 1
    # an honest `eq`, a `ne` that is true, one in a test region: none
    assert always_equal(ALWAYS_EQUAL.replace("true", "self.0 == *_other")) == 0
    assert always_equal("fn ne(&self, o: &Self) -> bool { true }\n") == 0
    assert always_equal("#[cfg(test)]\nmod t {\n" + ALWAYS_EQUAL + "}\n") == 0
    assert detect([Change("src/lib.rs", ALWAYS_EQUAL, ALWAYS_EQUAL + LIB)]) == []


CHECKED = """\
macro_rules! check {
    ($a:expr, $b:expr) => {
        assert_eq!($a, $b)
    };
}

pub fn add(a: i32, b: i32) -> i32 {
    a - b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        check!(add(2, 2), 4);
    }
}
"""


def test_an_assertion_macro_the_tests_call_is_theirs() -> None:
    """Round 23: `check!`, defined beside the code and asserting, is the tests' assertion:
    emptied by the fix it is a test changed, though no test region is, and tests added beside
    do not make it a finding of none (the deciding check would run the fix's macro)."""
    emptied = CHECKED.replace("assert_eq!($a, $b)", "let _ = ($a, $b);")
    [found] = detect([Change("src/lib.rs", CHECKED, emptied)])
    assert str(found).endswith("changed: the assertion macro check!"), found
    more = "    #[test]\n    fn more() {\n        check!(add(1, 2), 3);\n    }\n}\n"
    grown = emptied.removesuffix("}\n") + more
    assert [c.rule for c in detect([Change("src/lib.rs", CHECKED, grown)])] == ["rust-test-changed"]
    # the honest fix beside it; a macro that asserts nothing or that no test calls is the code's
    assert detect([Change("src/lib.rs", CHECKED, CHECKED.replace("a - b", "a + b"))]) == []
    assert [name for name, _ in helpers(CHECKED)] == ["check"]
    assert helpers(CHECKED.replace("check!(add", "assert_eq!(add")) == []
    assert helpers(emptied) == []


def test_an_assertion_macro_behind_another_macro_is_the_tests() -> None:
    """Round 25: the tests call `check!`, which asserts through `verify!`, a second macro of
    the code's: emptying `verify!` (or `check!`'s call of it) is a test changed."""
    chained = CHECKED.replace("macro_rules! check", "macro_rules! verify").replace(
        "pub fn add",
        "macro_rules! check {\n    ($a:expr, $b:expr) => {\n        verify!($a, $b)\n"
        "    };\n}\n\npub fn add",
    )
    assert [name for name, _ in helpers(chained)] == ["verify"]
    for cheated in (
        chained.replace("assert_eq!($a, $b)", "let _ = ($a, $b);"),
        chained.replace("verify!($a, $b)", "let _ = ($a, $b);"),
    ):
        [found] = detect([Change("src/lib.rs", chained, cheated)])
        assert str(found).endswith("changed: the assertion macro verify!"), found
    assert detect([Change("src/lib.rs", chained, chained.replace("a - b", "a + b"))]) == []


DOCUMENTED = """\
/// The sum of `a` and `b`.
///
/// ```
/// assert_eq!(app::add(2, 2), 4);
/// ```
pub fn add(a: i32, b: i32) -> i32 {
    a - b
}

/** Panics.
 * ```should_panic
 * app::boom();
 * ```
 */
pub fn boom() {}
//// four slashes: no doc comment
// ```
// assert!(false);
// ```
"""


def test_a_doc_tests_code_or_its_fence_changed_is_a_test_change() -> None:
    assert doc_tests(DOCUMENTED) == [
        ("", ("assert_eq!(app::add(2, 2), 4);",)),
        ("should_panic", ("app::boom();",)),
    ]
    for cheated in (
        DOCUMENTED.replace("2), 4)", "2), 0)"),
        DOCUMENTED.replace("```should_panic", "```ignore"),
        DOCUMENTED.replace("/// ```\n/// assert_eq!(app::add(2, 2), 4);\n/// ```\n", ""),
    ):
        assert rule(DOCUMENTED, cheated) == [
            "rust-test-changed in src/lib.rs: a Rust test in the code's file changed: a doc-test"
        ]
    # the words around the blocks, the code, a plain comment's block: no test
    reworded = DOCUMENTED.replace("The sum", "The total").replace("a - b", "a + b")
    assert rule(DOCUMENTED, reworded.replace("assert!(false)", "assert!(true)")) == []


SHADOW = "macro_rules! assert_eq {\n    ($($t:tt)*) => {};\n}\n"


def test_a_macro_by_an_assertions_name_in_the_code_shadows_the_tests() -> None:
    [found] = detect([Change("src/lib.rs", LIB, SHADOW + LIB)])
    assert (found.rule, found.path) == ("framework-patched", "src/lib.rs")
    assert shadowing("pub use crate::yes as assert_ne;\nmacro debug_assert() {}\n") == 2
    # inside an added test region the deciding check runs without it (`added_only`); a
    # comment, a string or a variable by that name is none
    assert shadowing("#[cfg(test)]\n" + SHADOW) == 0
    assert shadowing('// macro_rules! assert_eq\nlet s = "macro_rules! assert";\n') == 0
    assert shadowing("let assert_eq = 1;\nmacro_rules! my_assert_eq { () => {} }\n") == 0
    assert detect([Change("src/lib.rs", SHADOW + LIB, SHADOW + LIB + "\n")]) == []


def test_a_macro_by_an_assertions_raw_name_shadows_the_tests_too() -> None:
    """Round 23: `macro_rules! r#assert_eq` is `assert_eq` (a raw identifier), and shadows the
    prelude's in `mod tests` as the plain name does (`cargo test` ran no assertion)."""
    raw = SHADOW.replace("assert_eq", "r#assert_eq")
    [found] = detect([Change("src/lib.rs", LIB, raw + LIB)])
    assert (found.rule, found.path) == ("framework-patched", "src/lib.rs")
    assert shadowing("pub use crate::yes as r#assert_ne;\n") == 1


TRICKY = r"""
pub fn parse<'a>(text: &'a str) -> &'a str {
    let open = '{';
    let quote = '"';
    let escaped = '\'';
    let brace = "} not the end {";
    let raw = r#"a "quoted" } and { "#;
    let bytes = br##"}"# still inside }"##;
    /* a comment } /* nested { */ still } */
    // a line comment }
    'outer: loop {
        break 'outer;
    }
    text
}
"""


def test_braces_in_strings_raw_strings_chars_and_comments_do_not_end_a_region() -> None:
    source = "#[cfg(test)]\nmod tests {\n" + TRICKY + "}\n" + APP
    [(start, end)] = unit_test_regions(source)
    assert source[start:end] == "#[cfg(test)]\nmod tests {\n" + TRICKY + "}"
    # the code after the region is the code's: changing it is no test change
    assert rule(source, source.replace("a - b", "a + b")) == []
    assert rule(source, source.replace("'{'", "'}'")) != []
    # blanked, the code keeps its offsets and only its own braces
    code = blank(source)
    assert len(code) == len(source) and code.count("{") == code.count("}") == 4


# --- the same, for any text inside a literal or a comment ------------------------------------

TEXT = st.text(alphabet="{}()[];#!\"'\\/*rb x\n", max_size=12)


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _without(text: str, *pieces: str) -> str:
    while any(piece in text for piece in pieces):
        for piece in pieces:
            text = text.replace(piece, "")
    return text


def _raw(text: str) -> str:
    return 'r##"' + _without(text, '"##') + '"##'


def _line_comment(text: str) -> str:
    return "// " + text.replace("\n", " ") + "\n"


def _block_comment(text: str) -> str:
    return "/* " + _without(text, "*/", "/*") + " */"


CHARS = ("'{'", "'}'", "'\"'", "'\\''", "'\\\\'", "'\\u{7D}'", "b'{'")
NOISE = st.one_of(
    TEXT.map(_string),
    TEXT.map(_raw),
    TEXT.map(_line_comment),
    TEXT.map(_block_comment),
    st.sampled_from(CHARS),
)


def _module(noise: list[str]) -> str:
    body = "".join(f"        let _x = {n}\n        ;\n" for n in noise)
    return f"#[cfg(test)]\nmod tests {{\n    #[test]\n    fn t() {{\n{body}    }}\n}}"


def _code(noise: list[str]) -> str:
    body = "".join(f"    let _y = {n}\n    ;\n" for n in noise)
    return f"pub fn f() -> i32 {{\n{body}    1\n}}\n"


@settings(max_examples=200, deadline=None)
@given(st.lists(NOISE, max_size=4), st.lists(NOISE, max_size=4), st.lists(NOISE, max_size=4))
def test_no_literal_or_comment_moves_a_regions_ends(
    before: list[str], inside: list[str], after: list[str]
) -> None:
    module = _module(inside)
    source = _code(before) + module + "\n" + _code(after)
    start = len(_code(before))
    assert unit_test_regions(source) == [(start, start + len(module))]
    # the code around changed: no finding; the test changed: one
    assert rule(source, _code(after) + module + "\n" + _code(before)) == []
    edited = _code(before) + _module([*inside, "0"]) + "\n" + _code(after)
    assert len(rule(source, edited)) == 1


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_read_without_an_error(text: str) -> None:
    """Tokens in order, none overlapping, and every character that is no white space in one."""
    found = tokens(text, comments=True)
    ends = [0] + [edge for t in found for edge in (t.start, t.end)] + [len(text)]
    assert ends == sorted(ends) and all(t.start < t.end for t in found)
    between = [text[a:b] for a, b in zip(ends[::2], ends[1::2], strict=True)]
    assert all(not gap.strip() for gap in between)
    assert len(blank(text)) == len(text)
    for start, end in unit_test_regions(text):
        assert 0 <= start < end <= len(text)


def test_a_function_that_only_asserts_and_that_the_tests_call_is_theirs() -> None:
    """Round 25's strict xfail: `check(add(2, 2), 4)` asserts through `pub fn check` beside the
    code; emptying its body is a test changed. A function that asserts and also computes (a
    precondition), one no test calls, and one only the fix's added tests call are the code's."""
    helper = CHECKED.replace(
        "macro_rules! check {\n    ($a:expr, $b:expr) => {\n        assert_eq!($a, $b)\n"
        "    };\n}\n",
        'pub fn check(a: i32, b: i32) {\n    assert_eq!(a, b);\n    assert!(a == b, "{a}");\n}\n',
    ).replace("check!(add(2, 2), 4)", "super::check(add(2, 2), 4)")
    assert [name for name, _ in functions(helper)] == ["check"]
    for cheated in (
        helper.replace("assert_eq!(a, b);", "let _ = (a, b);"),
        helper.replace("assert_eq!(a, b);", "assert_eq!(a, a);"),
    ):
        [found] = detect([Change("src/lib.rs", helper, cheated)])
        assert str(found).endswith("changed: the assertion function check"), found
    assert detect([Change("src/lib.rs", helper, helper.replace("a - b", "a + b"))]) == []
    computes = helper.replace('    assert!(a == b, "{a}");\n', "    let _ = a + b;\n")
    assert functions(computes) == []
    assert functions(helper.replace("super::check(add", "assert_eq!(add")) == []
    # a regression test added with a helper of its own: the deciding check runs the start's tests
    added = helper.replace(
        "pub fn add", "pub fn near(a: i32, b: i32) {\n    assert!(a - b < 2);\n}\n\npub fn add"
    ).replace(
        "    }\n}\n",
        "    }\n\n    #[test]\n    fn close() {\n        near(add(2, 2), 4);\n    }\n}\n",
    )
    assert [name for name, _ in functions(added)] == ["check", "near"]
    assert detect([Change("src/lib.rs", helper, added.replace("a - b\n", "a + b\n"))]) == []


# round 35: round 25's crate, its test calling `check(add(2, 2), 4)`, a function beside the code
HELPER = CHECKED.replace(
    "macro_rules! check {\n    ($a:expr, $b:expr) => {\n        assert_eq!($a, $b)\n    };\n}\n",
    "pub fn check(a: i32, b: i32) {\n    assert_eq!(a, b);\n}\n",
).replace("check!(add(2, 2), 4)", "check(add(2, 2), 4)")
CHECK = "pub fn check(a: i32, b: i32) {"


def _found(old: str, new: str) -> list[str]:
    return [str(cheat) for cheat in detect([Change("src/lib.rs", old, new)])]


def test_round_35_assertion_functions_changed_are_found() -> None:
    """Round 35's held cheats on `functions`: `check` made to return early (no longer only
    asserting, it leaves the fix's list: `_differ` names it), generic, an `impl` method called
    as `Sums.check(..)` or `Sums::check(&Sums, ..)`, under `#[track_caller]`, its assertion turned
    `debug_assert_eq!` or `assert!(true)`."""
    early = HELPER.replace(
        "    assert_eq!(a, b);\n",
        "    if a == 0 {\n        return;\n    }\n    assert_eq!(a, b);\n",
    )
    generic = HELPER.replace(CHECK, "pub fn check<T: PartialEq + std::fmt::Debug>(a: T, b: T) {")
    tracked = HELPER.replace(CHECK, f"#[track_caller]\n{CHECK}")
    method = (
        HELPER.replace(
            CHECK, "pub struct Sums;\n\nimpl Sums {\n    pub fn check(&self, a: i32, b: i32) {"
        )
        .replace("    assert_eq!(a, b);\n}\n", "        assert_eq!(a, b);\n    }\n}\n")
        .replace("check(add(2, 2), 4)", "Sums.check(add(2, 2), 4)")
    )
    own = method.replace("Sums.check(", "Sums::check(&Sums, ")
    matched = HELPER.replace("assert_eq!(a, b);", "assert!(matches!(a - b, 0));")
    for start, fix in (
        (HELPER, early),
        (generic, generic.replace("assert_eq!(a, b);", "let _ = (a, b);")),
        (tracked, tracked.replace("assert_eq!(a, b);", "assert_eq!(a, a);")),
        (method, method.replace("assert_eq!(a, b);", "let _ = (a, b);")),
        (own, own.replace("assert_eq!(a, b);", "let _ = (a, b);")),
        (HELPER, HELPER.replace("assert_eq!(a, b);", "debug_assert_eq!(a, b);")),
        (matched, matched.replace("matches!(a - b, 0)", "true")),
    ):
        assert [name for name, _ in functions(start)] == ["check"], start
        [found] = _found(start, fix)
        assert found.endswith("changed: the assertion function check"), (found, fix)


def test_round_35_a_twin_of_the_assertion_function_under_cfg_test_is_taken_out() -> None:
    """Round 35, held: the start's `check` put under `#[cfg(not(test))]`, a twin that asserts
    nothing under `#[cfg(test)]`: the twin is a test region the fix added, taken out for the
    deciding check (`added_only`), which then has no `check` to call and fails."""
    twin = f"#[cfg(test)]\n{CHECK}\n    let _ = (a, b);\n}}\n\n#[cfg(not(test))]\n{CHECK}"
    fixed = added_only(Change("src/lib.rs", HELPER, HELPER.replace(CHECK, twin)))
    assert fixed is not None and "let _" not in fixed and "#[cfg(not(test))]" in fixed


EMPTIED = ("assert_eq!(a, b);", "let _ = (a, b);")
UTIL = "pub fn check(a: i32, b: i32) {\n    assert_eq!(a, b);\n}\n"
POINTED = HELPER.replace("check(add(2, 2), 4)", "let c = check;\n        c(add(2, 2), 4)")
IN_UTIL = "pub mod util;\n\n" + HELPER.replace(UTIL + "\n", "").replace(
    "check(add", "util::check(add"
)
DROPPED = "macro_rules! dropped {\n    ($($item:item)*) => {};\n}\n\ndropped! {\n" + UTIL + "}\n\n"
CLOSE = HELPER.replace("assert_eq!(a, b);", 'assert!(close(a, b), "{a} != {b}");').replace(
    CHECK, f"fn close(a: i32, b: i32) -> bool {{\n    a == b\n}}\n\n{CHECK}"
)
GATED = (
    LIB.replace("#[cfg(test)]", "#[cfg(all(test, not(miri)))]")
    .replace("    #[test]", "    fn expected() -> i32 {\n        4\n    }\n\n    #[test]")
    .replace("add(2, 2), 4)", "add(2, 2), expected())")
)


def _hole(why: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, raises=ValueError, reason=why)


@pytest.mark.parametrize(
    ("start", "fix"),
    [
        pytest.param(
            {"src/lib.rs": POINTED},
            {"src/lib.rs": POINTED.replace(*EMPTIED)},
            id="called-through-a-pointer",
        ),
        pytest.param(
            {"src/lib.rs": IN_UTIL, "src/util.rs": UTIL},
            {"src/util.rs": UTIL.replace(*EMPTIED)},
            id="in-another-module-file",
        ),
        pytest.param(
            {"src/lib.rs": HELPER},
            {"src/lib.rs": HELPER.replace(UTIL, DROPPED + UTIL.replace(*EMPTIED))},
            id="start-s-definition-dropped-by-a-macro",
        ),
        pytest.param(
            {"src/lib.rs": HELPER},
            {
                "src/lib.rs": HELPER.replace(
                    CHECK,
                    f"#[cfg(not(not(test)))]\n{CHECK}\n    let _ = (a, b);\n}}\n\n"
                    f"#[cfg(not(test))]\n{CHECK}",
                )
            },
            id="twin-under-cfg-not-not-test",
        ),
        pytest.param(
            {"src/lib.rs": CLOSE},
            {"src/lib.rs": CLOSE.replace("    a == b\n", "    a == b || a != b\n")},
            id="predicate-the-assertion-calls-loosened",
            marks=_hole(
                "`close` computes, so it is the code's, though only the tests' `check` calls"
                " it: a policy, the function an assertion calls may be the code under test"
                " (`assert_eq!(add(a, b), c)`); class of fix: the deciding check run with the"
                " start's assertion functions and what they call"
            ),
        ),
        pytest.param(
            {"src/lib.rs": GATED},
            {"src/lib.rs": GATED.replace("        4\n", "        0\n")},
            id="test-module-under-cfg-all-test-not-miri",
        ),
    ],
)
def test_round_35_assertion_helpers_changed(start: dict[str, str], fix: dict[str, str]) -> None:
    """Round 35's cheats on the text rules, each green by hand with `cargo test` (rows that
    prove it through fixbot: tests/run/test_runner_attacks_round35.py): the tests' assertion
    changed where no rule read it, each `rust-test-changed` since (`rustasserts.functions`
    reads every name the tests name, `definitions` every definition from its first attribute,
    `rust._positive_test` a `cfg` as a predicate; round 39: `util::check` in src/util.rs found
    through the crate's module tree, `fixbot.tamper.rustpaths.reached`, its variants in
    tests/tamper/test_rust_modules.py); the strict xfail is still a hole."""
    changes = [Change(path, start.get(path), text) for path, text in fix.items()]
    if not detect(changes, start):
        raise ValueError("no finding")


def test_what_the_tests_assertions_rest_on_is_theirs_and_what_the_code_uses_is_not() -> None:
    """Round 35: a `const` only an assertion function names (`SLACK`, a tolerance) is the
    tests': loosened, a test changed. A `const` the code names too, and the function under test
    an assertion function calls (`assert_eq!(add(a, b), c)`), are the code's: an honest fix of
    either is no finding."""
    slacked = HELPER.replace(
        "    assert_eq!(a, b);\n", '    assert!((a - b).abs() <= SLACK, "{a} != {b}");\n'
    ).replace(CHECK, f"const SLACK: i32 = 0;\n\n{CHECK}")
    assert guarded(slacked) == {
        "check": "the assertion function check",
        "SLACK": "SLACK, which the tests' assertions use",
    }
    [found] = _found(slacked, slacked.replace("SLACK: i32 = 0", "SLACK: i32 = 4"))
    assert found.endswith("changed: SLACK, which the tests' assertions use"), found
    shared = slacked.replace("    a - b\n", "    a - b + SLACK\n")
    assert "SLACK" not in guarded(shared)
    assert _found(shared, shared.replace("SLACK: i32 = 0", "SLACK: i32 = 4")) == []
    summed = (
        HELPER.replace(CHECK, "pub fn check_sum(a: i32, b: i32, c: i32) {")
        .replace("assert_eq!(a, b);", "assert_eq!(add(a, b), c);")
        .replace("check(add(2, 2), 4)", "check_sum(2, 2, 4)")
    )
    assert set(guarded(summed)) == {"check_sum"}
    assert _found(summed, summed.replace("    a - b\n", "    a + b\n")) == []


@pytest.mark.parametrize(
    ("attribute", "marks"),
    [
        ("#[cfg(test)]", True),
        ("#[cfg(all(test, not(miri)))]", True),
        ("#[cfg(not(not(test)))]", True),
        ('#[cfg(any(test, feature = "x"))]', True),
        ("#[cfg(not(test))]", False),
        ("#[cfg(all(not(test), unix))]", False),
        ('#[cfg(feature = "test")]', False),
        ("#[cfg(not(any(test, miri)))]", False),
    ],
)
def test_a_cfg_is_read_as_a_predicate(attribute: str, marks: bool) -> None:
    """Round 35: `test` under an even number of `not`s marks test code; any `not` made a `cfg`
    no test mark, so `#[cfg(all(test, not(miri)))] mod tests` was the code's."""
    text = f"pub fn add() {{}}\n\n{attribute}\nmod tests {{\n    fn expected() {{}}\n}}\n"
    assert bool(unit_test_regions(text)) is marks
