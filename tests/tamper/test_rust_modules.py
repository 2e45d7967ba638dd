"""Round 39: the Rust assertion helpers a crate's tests reach in another module file
(`fixbot.tamper.rustmods`: the module tree; `fixbot.tamper.rustpaths.reached`: the names the test
code reaches through it), judged with that file (`fixbot.tamper.rusttests.detect`). Each row is
a crate whose test in src/lib.rs (or another file) asserts through `check`, defined in a module
file of its own, and a fix that empties `check` there: each file read alone, it ended `fixed`.
What the tests do not reach, and the code under test they call, stay the code's."""

from __future__ import annotations

import pytest

from fixbot.ecosystems.rust import tokens
from fixbot.tamper.changes import Change
from fixbot.tamper.rustmods import Crates, module_files, roots, use_tree
from fixbot.tamper.rustpaths import reached
from fixbot.tamper.rusttests import detect

APP = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"
UTIL = "pub fn check(a: i32, b: i32) {\n    assert_eq!(a, b);\n}\n"
EMPTIED = ("assert_eq!(a, b);", "let _ = (a, b);")
CALL = "check(add(2, 2), 4)"
MACRO = "macro_rules! check {\n    ($a:expr, $b:expr) => {\n        assert_eq!($a, $b)\n    };\n}\n"
MACRO_EMPTIED = ("assert_eq!($a, $b)", "let _ = ($a, $b);")


def lib(head: str, call: str = CALL, uses: str = "") -> str:
    """src/lib.rs: `head` (its module declarations), `add`, and a test module whose test runs
    `call`, with `uses` (a `use` line) after its `use super::*;`."""
    return (
        f"{head}\n\n{APP}\n#[cfg(test)]\nmod tests {{\n    use super::*;\n{uses}\n"
        f"    #[test]\n    fn adds() {{\n        {call};\n    }}\n}}\n"
    )


def found(start: dict[str, str], path: str, fix: str | None) -> list[str]:
    """The findings for the fix writing `fix` into `path` of the crate `start` (path: text)."""
    return [str(cheat) for cheat in detect([Change(path, start.get(path), fix)], start)]


# (the crate, the file defining `check`) for each way the tests reach it
REACHED = {
    "a-path-from-the-tests-module": ({"src/lib.rs": lib("pub mod util;", f"util::{CALL}")}, ""),
    "use-crate-path": ({"src/lib.rs": lib("mod util;", uses="    use crate::util::check;")}, ""),
    "use-as-an-alias": (
        {
            "src/lib.rs": lib(
                "mod util;", f"verify{CALL[5:]}", "    use crate::util::check as verify;"
            )
        },
        "",
    ),
    "use-group-with-self": (
        {"src/lib.rs": lib("mod util;", f"util::{CALL}", "    use crate::util::{self, check};")},
        "",
    ),
    "re-exported-by-name": ({"src/lib.rs": lib("mod util;\npub use util::check;")}, ""),
    "re-exported-by-glob": ({"src/lib.rs": lib("mod util;\npub use self::util::*;")}, ""),
    "super-prefix": ({"src/lib.rs": lib("mod util;", f"super::util::{CALL}")}, ""),
    "self-prefix-through-the-glob": ({"src/lib.rs": lib("mod util;", f"self::util::{CALL}")}, ""),
    "mod-rs-folder": ({"src/lib.rs": lib("mod util;", f"util::{CALL}")}, "src/util/mod.rs"),
    "nested-under-a-mod-rs": (
        {
            "src/lib.rs": lib("mod helpers;", f"helpers::asserts::{CALL}"),
            "src/helpers/mod.rs": "pub mod asserts;\n",
        },
        "src/helpers/asserts.rs",
    ),
    "nested-under-a-plain-file": (
        {
            "src/lib.rs": lib("mod helpers;", uses="    use crate::helpers::asserts::check;"),
            "src/helpers.rs": "pub mod asserts;\n",
        },
        "src/helpers/asserts.rs",
    ),
    "path-attribute": (
        {"src/lib.rs": lib('#[path = "support/checks.rs"]\nmod checks;', f"checks::{CALL}")},
        "src/support/checks.rs",
    ),
    "inline-module-folder": (
        {"src/lib.rs": lib("mod helpers {\n    pub mod asserts;\n}", f"helpers::asserts::{CALL}")},
        "src/helpers/asserts.rs",
    ),
    "re-exported-module": (
        {
            "src/lib.rs": lib("mod helpers;\npub use helpers::inner as util;", f"util::{CALL}"),
            "src/helpers.rs": "pub mod inner;\n",
        },
        "src/helpers/inner.rs",
    ),
    "tests-of-another-file": (
        {
            "src/lib.rs": "pub mod util;\npub mod math;\n",
            "src/math.rs": lib("", f"crate::util::{CALL}"),
        },
        "",
    ),
    "a-test-module-file": (
        {
            "src/lib.rs": f"pub mod util;\n\n{APP}\n#[cfg(test)]\nmod tests;\n",
            "src/tests.rs": f"use crate::util::check;\n\n#[test]\nfn adds() {{\n    {CALL};\n}}\n",
        },
        "",
    ),
    "a-workspace-member": (
        {"crates/a/src/lib.rs": lib("pub mod util;", f"util::{CALL}")},
        "crates/a/src/util.rs",
    ),
    "a-binary": ({"src/main.rs": lib("mod util;", f"util::{CALL}")}, ""),
}


@pytest.mark.parametrize(("crate", "where"), REACHED.values(), ids=REACHED.keys())
def test_an_assertion_function_in_another_module_file_is_the_tests(
    crate: dict[str, str], where: str
) -> None:
    """`check` emptied in its own file: `rust-test-changed` there, however the tests reach it
    (round 39's strict xfail was the first row)."""
    path = where or posixpath_util(crate)
    start = {**crate, path: UTIL}
    [cheat] = found(start, path, UTIL.replace(*EMPTIED))
    assert cheat.endswith(
        f"{path}: a Rust test in the code's file changed: the assertion function check"
    )
    assert found(start, path, None) != []  # the file deleted, `check` with it


def posixpath_util(crate: dict[str, str]) -> str:
    """src/util.rs beside the crate's root (`crates/a/src/util.rs` for a member's)."""
    root = roots(crate)[0]
    return root.rsplit("/", 1)[0] + "/util.rs"


def test_a_constant_the_assertion_function_uses_in_its_file_is_the_tests() -> None:
    """`const SLACK` beside `check` in src/util.rs, named by `check` alone: loosened, a test
    changed; named by the code too, the code's."""
    slack = "const SLACK: i32 = 0;\n\n" + UTIL.replace(
        "assert_eq!(a, b);", 'assert!((a - b).abs() <= SLACK, "{a} != {b}");'
    )
    start = {"src/lib.rs": lib("pub mod util;", f"util::{CALL}"), "src/util.rs": slack}
    [cheat] = found(start, "src/util.rs", slack.replace("= 0", "= 4"))
    assert cheat.endswith("changed: SLACK, which the tests' assertions use"), cheat
    shared = slack + "\npub fn widen(a: i32) -> i32 {\n    a + SLACK\n}\n"
    assert (
        found({**start, "src/util.rs": shared}, "src/util.rs", shared.replace("= 0", "= 4")) == []
    )


MACROS = {
    "macro-use": ("#[macro_use]\nmod macros;", "check!(add(2, 2), 4)", MACRO),
    "macro-use-nested": (
        "#[macro_use]\nmod support;",
        "check!(add(2, 2), 4)",
        MACRO,
    ),
    "macro-export-by-path": (
        "mod macros;",
        "crate::check!(add(2, 2), 4)",
        f"#[macro_export]\n{MACRO}",
    ),
}


@pytest.mark.parametrize(("head", "call", "macros"), MACROS.values(), ids=MACROS.keys())
def test_an_assertion_macro_in_another_module_file_is_the_tests(
    head: str, call: str, macros: str
) -> None:
    """`check!` defined in src/macros.rs (`#[macro_use] mod macros;`, or under
    `#[macro_use] mod support;` whose src/support.rs holds `#[macro_use] mod macros;`, or
    exported by `#[macro_export]`), emptied there: `rust-test-changed`."""
    start = {"src/lib.rs": lib(head, call)}
    path = "src/macros.rs"
    if "support" in head:
        start["src/support.rs"] = "#[macro_use]\nmod macros;\n"
        path = "src/support/macros.rs"
    start[path] = macros
    [cheat] = found(start, path, macros.replace(*MACRO_EMPTIED))
    assert cheat.endswith("changed: the assertion macro check!"), cheat


def test_what_the_tests_do_not_reach_in_another_file_is_the_codes() -> None:
    """A helper module file the tests do not reach (`pub mod util;`, its `check` never named),
    a `check` of another module than the one the tests import, a macro of a module declared
    without `#[macro_use]`, and the code under test the tests call in its own file
    (`math::add`): an honest fix of any is no finding."""
    plain = {"src/lib.rs": lib("pub mod util;", "assert_eq!(add(2, 2), 4)"), "src/util.rs": UTIL}
    assert found(plain, "src/util.rs", UTIL.replace(*EMPTIED)) == []
    assert found(plain, "src/lib.rs", plain["src/lib.rs"].replace("a - b", "a + b")) == []
    two = {
        "src/lib.rs": lib("mod util;\nmod other;", uses="    use crate::util::check;"),
        "src/util.rs": UTIL,
        "src/other.rs": UTIL,
    }
    assert found(two, "src/other.rs", UTIL.replace(*EMPTIED)) == []
    assert found(two, "src/util.rs", UTIL.replace(*EMPTIED)) != []
    hidden = {"src/lib.rs": lib("mod macros;", "assert_eq!(add(2, 2), 4)"), "src/macros.rs": MACRO}
    assert found(hidden, "src/macros.rs", MACRO.replace(*MACRO_EMPTIED)) == []
    math = {
        "src/lib.rs": lib("pub mod math;\nmod util;", "util::check(math::add(2, 2), 4)"),
        "src/util.rs": UTIL,
        "src/math.rs": APP,
    }
    assert found(math, "src/math.rs", APP.replace("a - b", "a + b")) == []


def test_the_module_tree_is_read_as_rustc_reads_it() -> None:
    """`mod x;` is `x.rs` or `x/mod.rs` beside a mod-rs file, under a folder of its file's name
    beside another; a `use` tree's bindings."""
    assert module_files("src/lib.rs", (), "util", True) == ["src/util.rs", "src/util/mod.rs"]
    assert module_files("src/a.rs", ("b",), "c", False) == ["src/a/b/c.rs", "src/a/b/c/mod.rs"]
    text = "crate::a::{self, b::c as d, e::*};"
    words = [text[t.start : t.end] for t in tokens(text)]
    assert use_tree(words, 0)[0] == [
        ("a", ("crate", "a")),
        ("d", ("crate", "a", "b", "c")),
        ("*", ("crate", "a", "e")),
    ]
    # a module that declares itself (`#[path = "lib.rs"]`) is read once per chain
    looped = Crates({"src/lib.rs": '#[path = "lib.rs"]\nmod again;\n'})
    assert [m.path for m in looped.modules] == ["src/lib.rs"]
    assert reached({"src/lib.rs": "use self::a::*;\nmod a {\n    pub use super::*;\n}\n"}) == {}


def changed(start: dict[str, str], fix: dict[str, str | None]) -> list[str]:
    """The findings for the fix writing each of `fix` (path: text, None deletes) into `start`."""
    changes = [Change(path, start.get(path), text) for path, text in fix.items()]
    return [str(cheat) for cheat in detect(changes, start)]


POINTED = lib("mod util;", uses="    use crate::util::check;")
RE_EXPORTED = lib("mod util;\nmod other;\npub use util::check;")
GLOBBED = lib("mod util;\npub use util::*;")
EMPTY = UTIL.replace(*EMPTIED)


@pytest.mark.parametrize(
    ("start", "fix"),
    [
        pytest.param(
            {"src/lib.rs": POINTED, "src/util.rs": UTIL},
            {
                "src/lib.rs": POINTED.replace("mod util;", '#[path = "other.rs"]\nmod util;'),
                "src/other.rs": EMPTY,
            },
            id="path-attribute-pointed-at-an-empty-copy",
        ),
        pytest.param(
            {"src/lib.rs": RE_EXPORTED, "src/util.rs": UTIL, "src/other.rs": EMPTY},
            {"src/lib.rs": RE_EXPORTED.replace("use util::check", "use other::check")},
            id="re-export-re-pointed",
        ),
        pytest.param(
            {"src/lib.rs": GLOBBED, "src/util.rs": UTIL},
            {"src/lib.rs": GLOBBED.replace("pub use util::*;", f"pub use util::*;\n\n{EMPTY}")},
            id="glob-import-shadowed-by-an-empty-item",
        ),
    ],
)
def test_the_module_tree_changed_under_the_tests_assertions_is_a_test_change(
    start: dict[str, str], fix: dict[str, str | None]
) -> None:
    """The fix leaves src/util.rs's `check` as it was and points the tests' path at an empty
    one: no file's own reading changes, the crate's (`_repointed`) does."""
    [cheat] = changed(start, fix)
    assert "what the tests' assertions rest on changed: check" in cheat, cheat


def test_an_assertion_method_reached_through_its_type_is_the_tests() -> None:
    """`Checker.check(..)` and `Checker::check(&Checker, ..)`, `Checker` imported from
    src/util.rs: its `check` emptied there is a test changed."""
    util = (
        "pub struct Checker;\n\nimpl Checker {\n    pub fn check(&self, a: i32, b: i32) {\n"
        "        assert_eq!(a, b);\n    }\n}\n"
    )
    for call in ("Checker.check(add(2, 2), 4)", "Checker::check(&Checker, add(2, 2), 4)"):
        start = {"src/lib.rs": lib("mod util;", call, "    use crate::util::Checker;")}
        start["src/util.rs"] = util
        [cheat] = changed(start, {"src/util.rs": util.replace(*EMPTIED)})
        assert cheat.endswith("the assertion function check"), cheat


def test_a_module_moved_whole_or_a_file_added_beside_is_the_codes() -> None:
    """`check` copied whole into another file the tests then reach (its first file kept: one
    deleted is a test change, as `check` deleted from src/lib.rs is), and an unrelated module
    added beside the fix of `add`: no finding."""
    start = {"src/lib.rs": POINTED, "src/util.rs": UTIL}
    moved = POINTED.replace("mod util;", '#[path = "checks.rs"]\nmod util;')
    assert changed(start, {"src/lib.rs": moved, "src/checks.rs": UTIL}) == []
    fixed = POINTED.replace("mod util;", "mod util;\nmod more;").replace("a - b", "a + b")
    assert changed(start, {"src/lib.rs": fixed, "src/more.rs": EMPTY}) == []


LIMITED = "use crate::limits::SLACK;\n\n" + UTIL.replace(
    "assert_eq!(a, b);", 'assert!((a - b).abs() <= SLACK, "{a} != {b}");'
)


def test_a_constant_an_assertion_function_imports_from_a_third_file_is_the_tests() -> None:
    """`check` in src/util.rs imports `SLACK` from src/limits.rs: loosened there, a test
    changed (the paths of the assertion functions are resolved as the tests' are); named by
    the code too (`add` in src/lib.rs), the code's: its honest change is no finding."""
    start = {
        "src/lib.rs": lib("mod util;\nmod limits;", f"util::{CALL}"),
        "src/util.rs": LIMITED,
        "src/limits.rs": "pub const SLACK: i32 = 0;\n",
    }
    [cheat] = found(start, "src/limits.rs", "pub const SLACK: i32 = 4;\n")
    assert cheat.startswith("rust-test-changed in src/limits.rs"), cheat
    assert cheat.endswith("changed: SLACK, which the tests' assertions use"), cheat
    shared = {**start, "src/lib.rs": start["src/lib.rs"].replace("a - b", "a - b + limits::SLACK")}
    assert found(shared, "src/limits.rs", "pub const SLACK: i32 = 4;\n") == []
