"""Round 42's three Rust holes at the rules' level: a build dependency's crate is the build
script's configuration (`fixbot.tamper.rustbuild.built_with`), the files read are those the
crates' module trees reach, and a cut reading is not verified (`fixbot.tamper.rustreach`), and
a dependency's source changed in a manifest is configuration (`fixbot.tamper.rustsources`).
Each row fails without its control; the honest rows are no finding."""

from __future__ import annotations

import pytest

from fixbot.tamper import rustreach
from fixbot.tamper.changes import Change
from fixbot.tamper.rustbuild import built_with
from fixbot.tamper.rustreach import reach, unread
from fixbot.tamper.rustsources import changed
from fixbot.tamper.rusttests import detect
from tests.run.test_runner_attacks_round42 import (
    BUILD_DEPENDENCY,
    EMPTIED_MACRO,
    GEN_LIB,
    PADDED,
    REPOINTED,
    WORKSPACE,
)

CARGO = '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n'


def found(start: dict[str, str], fix: dict[str, str | None]) -> list[str]:
    """The findings for the fix writing `fix` into `start`, the start's files read as
    `fixbot.run.integrity` reads them (`reach`, `unread`)."""
    changes = [Change(path, start.get(path), text) for path, text in fix.items()]
    read = reach([c.path for c in changes], start, start.__getitem__)
    return [str(cheat) for cheat in detect(changes, read.texts) + unread(changes, read.cut)]


def test_a_build_dependencys_files_are_configuration() -> None:
    """build.rs's `gen::CHECK` of a build dependency under `[target.'cfg(unix)'...]`: any file
    of gen/ (its package), and of what gen depends on in turn, is `config-changed`."""
    emptied = GEN_LIB.replace("assert_eq!(a, b);", "let _ = (a, b);")
    assert any(
        "config-changed in gen/src/lib.rs" in f
        for f in found(BUILD_DEPENDENCY, {"gen/src/lib.rs": emptied})
    )
    deeper = {
        **BUILD_DEPENDENCY,
        "gen/Cargo.toml": BUILD_DEPENDENCY["gen/Cargo.toml"]
        + '\n[dependencies]\nbase = { path = "../base" }\n',
        "base/Cargo.toml": CARGO.replace('"app"', '"base"'),
        "base/src/lib.rs": "pub const X: i32 = 1;\n",
        "gen/nested/Cargo.toml": CARGO.replace('"app"', '"nested"'),
        "gen/nested/src/lib.rs": "pub fn f() {}\n",
    }
    assert built_with(deeper) == {"gen", "base"}
    assert any(
        "config-changed in base/src/lib.rs" in f
        for f in found(deeper, {"base/src/lib.rs": "pub const X: i32 = 2;\n"})
    )
    # a package nested in a build dependency's folder is its own; the tests' crate the code's
    assert found(deeper, {"gen/nested/src/lib.rs": "pub fn f() { }\n// x\n"}) == []
    fixed = deeper["src/lib.rs"].replace("    a - b\n", "    a + b\n")
    assert found(deeper, {"src/lib.rs": fixed}) == []


def test_the_files_the_module_trees_reach_are_read() -> None:
    """401 `.rs` files no target builds are never read; the tests' src/lib.rs is, so the
    member's `check!` emptied is the tests'."""
    read = reach(["checks/src/lib.rs"], PADDED, PADDED.__getitem__)
    assert read.cut == "" and "src/lib.rs" in read.texts
    assert not any(path.startswith("pad_") for path in read.texts)
    assert any(
        "rust-test-changed" in f for f in found(PADDED, {"checks/src/lib.rs": EMPTIED_MACRO})
    )


def test_a_reading_the_cap_cuts_is_not_verified(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the module trees reach more files than the cap, the fix is not verified
    (`rust-test-changed`, the first file left unread named), whatever the tests reach."""
    modules = {f"src/m{n:03}.rs": "" for n in range(5)}
    start = {**WORKSPACE, **modules}
    start["src/lib.rs"] = "".join(f"mod m{n:03};\n" for n in range(5)) + start["src/lib.rs"]
    monkeypatch.setattr(rustreach, "MAX_CRATE_FILES", 4)
    fixed = start["src/lib.rs"].replace("    a - b\n", "    a + b\n")
    cut = found(start, {"src/lib.rs": fixed})
    assert any("rust-test-changed" in f and "unread" in f for f in cut), cut
    monkeypatch.setattr(rustreach, "MAX_CRATE_FILES", 400)
    assert found(start, {"src/lib.rs": fixed}) == []


@pytest.mark.parametrize(
    ("old", "new", "names"),
    [
        (
            '[dependencies]\nchecks = { path = "checks" }\n',
            '[dependencies]\nchecks = { path = "vendor/checks" }\n',
            ["checks"],
        ),
        (
            '[dependencies]\nchecks = "1"\n',
            '[dependencies]\nchecks = { git = "https://example.invalid/c" }\n',
            ["checks"],
        ),
        (
            '[dependencies]\nchecks = "1"\n',
            '[dependencies]\nchecks = { version = "1", package = "lax" }\n',
            ["checks"],
        ),
        (
            '[dependencies]\nchecks = "1"\n',
            '[dependencies]\nchecks = "1"\n[patch.crates-io]\nchecks = { path = "v" }\n',
            ["[patch]"],
        ),
        (
            '[dependencies]\nchecks = "1"\n',
            '[dependencies]\nchecks = "1"\n[replace]\n"checks:1.0.0" = { path = "v" }\n',
            ["[replace]"],
        ),
        (
            '[dependencies]\nchecks = "1"\n',
            '[dependencies]\nchecks = { version = "1", features = ["lax"] }\n',
            ["checks"],
        ),
        # a twin under a target's table, or the name moved to another table with another path
        (
            '[dependencies]\nchecks = { path = "c" }\n',
            '[dependencies]\nchecks = { path = "c" }\n'
            "[target.'cfg(unix)'.dependencies]\nchecks = { path = \"v\" }\n",
            ["checks"],
        ),
        (
            '[dependencies]\nchecks = { path = "c" }\n',
            '[dev-dependencies]\nchecks = { path = "v" }\n',
            ["checks"],
        ),
        (
            '[workspace.dependencies]\nchecks = { path = "c" }\n',
            '[workspace.dependencies]\nchecks = { path = "v" }\n',
            ["checks"],
        ),
        ('[dependencies]\nchecks = { path = "c" }\n', "", ["checks"]),
        # honest: a dependency added under a new name, a registry version bumped, a spelling
        ('[dependencies]\nchecks = "1"\n', '[dependencies]\nchecks = "1"\nserde = "1"\n', []),
        ('[dependencies]\nchecks = "1.0"\n', '[dependencies]\nchecks = "1.2"\n', []),
        (
            '[dependencies]\nchecks = { path = "c" }\n',
            '[dependencies]\nchecks = { path = "./c" }\n',
            [],
        ),
    ],
)
def test_a_dependencys_source_changed_is_configuration(
    old: str, new: str, names: list[str]
) -> None:
    """The start's dependency names whose source differs in the fix, or that it takes away,
    and `[patch]`/`[replace]` changed (`changed`)."""
    assert changed(CARGO + old, CARGO + new if new else "") == names


def test_the_path_dependency_re_pointed_is_configuration() -> None:
    """Round 42: the fix's Cargo.toml points `checks` at vendor/checks, an emptied copy."""
    assert any("config-changed in Cargo.toml" in f for f in found(WORKSPACE, dict(REPOINTED)))


INCLUDING = {
    "Cargo.toml": CARGO,
    "README.md": "app\n",
    "checks.in": "pub fn check(a: i32, b: i32) {\n    assert_eq!(a, b);\n}\n",
    "src/lib.rs": "pub mod checks {\n"
    '    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/checks.in"));\n}\n'
    "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
}


@pytest.mark.parametrize(
    ("include", "fix", "named"),
    [
        # round 43: the included file emptied, reached through a path no literal spells
        ('concat!(env!("CARGO_MANIFEST_DIR"), "/checks.in")', "checks.in", True),
        # any file no reading read may be the one included: a README too (fails safe)
        ('concat!(env!("CARGO_MANIFEST_DIR"), "/checks.in")', "README.md", True),
        # the build script's output (its configuration's rules judge build.rs): no finding
        ('concat!(env!("OUT_DIR"), "/checks.rs")', "checks.in", False),
        # a literal path is read as the module's text (round 39): not unresolved
        ('"../checks.in"', "README.md", False),
    ],
)
def test_a_file_included_through_a_path_not_spelled_is_not_verified(
    include: str, fix: str, named: bool
) -> None:
    """An `include!` the reader cannot resolve in a file the module trees reach, and a fix
    that changed a file no reading read: `rust-test-changed` naming that file
    (`rustreach.included`); a fix of the `.rs` code beside it is no finding."""
    start = {
        **INCLUDING,
        "src/lib.rs": INCLUDING["src/lib.rs"].replace(
            'concat!(env!("CARGO_MANIFEST_DIR"), "/checks.in")', include
        ),
    }
    changes = [Change(fix, start[fix], start[fix] + "// changed\n")]
    read = reach([fix], start, start.__getitem__)
    got = [str(c) for c in rustreach.included(changes, read.texts)]
    assert bool(got) is named, got
    assert not named or f"rust-test-changed in {fix}" in got[0]
    code = [Change("src/lib.rs", start["src/lib.rs"], start["src/lib.rs"] + "// fixed\n")]
    read = reach(["src/lib.rs"], start, start.__getitem__)
    assert rustreach.included(code, read.texts) == []


@pytest.mark.parametrize(
    ("macro", "where", "named"),
    [
        ("include_str", "test", True),
        ("include_bytes", "test", True),
        # the code's own data (a template the code renders): the code's to fix
        ("include_str", "code", False),
    ],
)
def test_a_file_a_test_region_includes_as_data_is_the_tests(
    macro: str, where: str, named: bool
) -> None:
    """Round 44: the expected values a test region reads by `include_str!`/`include_bytes!`
    (expected.txt) rewritten to the buggy code's answers: `rust-test-changed` naming the file
    (`rustreach.data`); the same file read by the code outside the test regions is no
    finding."""
    read = f'{macro}!("../expected.txt")'
    test = (
        f"#[cfg(test)]\nmod tests {{\n    #[test]\n    fn adds() {{\n        {read};\n    }}\n}}\n"
    )
    code = f"pub fn table() -> usize {{\n    {read}.len()\n}}\n"
    start = {
        "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n',
        "expected.txt": "adds 4\n",
        "src/lib.rs": code if where == "code" else test,
    }
    changes = [Change("expected.txt", "adds 4\n", "adds 0\n")]
    texts = reach(["expected.txt"], start, start.__getitem__).texts
    got = [str(c) for c in rustreach.data(changes, texts)]
    assert bool(got) is named, got
    assert not named or "rust-test-changed in expected.txt" in got[0]


@pytest.mark.parametrize(
    ("fix", "named"),
    [("checks.in", True), ("data/cases.txt", True), ("src/lib.rs", False), ("README.md", False)],
)
def test_a_file_the_build_script_names_is_configuration(fix: str, named: bool) -> None:
    """Round 44: build.rs (unchanged) copies checks.in, a tracked file, into OUT_DIR as the
    tests' `check`; the fix empties checks.in. A file a start's build script spells as a string
    literal (a `rerun-if-changed` line's too), relative to its package, is `config-changed`
    (`rustbuild.script_reads`, the script read by `reach`); the crate's code is not."""
    script = (
        'fn main() {\n    println!("cargo:rerun-if-changed=data/cases.txt");\n'
        '    std::fs::copy("checks.in", "x").unwrap();\n}\n'
    )
    start = {
        "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n',
        "build.rs": script,
        "checks.in": "pub fn check() {}\n",
        "data/cases.txt": "4\n",
        "src/lib.rs": "pub fn add() {}\n",
        "README.md": "app\n",
    }
    changes = [Change(fix, start[fix], start[fix] + "// changed\n")]
    texts = reach([fix], start, start.__getitem__).texts
    got = [str(c) for c in detect(changes, texts) if c.rule == "config-changed"]
    assert bool(got) is named, got
