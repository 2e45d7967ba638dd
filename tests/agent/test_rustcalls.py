"""The functions a failing Rust test reaches, read from a crate's `.rs` files without building
it: followed through the test's calls and a test helper's, never ranking test code, not fooled
by braces in strings, chars and comments."""

from __future__ import annotations

from pathlib import Path

from fixbot.agent import context, rustcalls
from tests.fakes import agent_repo
from tests.fakes.agent_repo import fix_context, make_repo

LIB = """\
pub fn distance(a: &str, b: &str) -> f64 {
    // a brace in a comment: {
    let open = '{';
    let text = "} not the end {";
    generic_distance(a.chars(), b.chars()) + helper(open, text)
}

fn generic_distance<I: Iterator<Item = char>>(a: I, b: I) -> f64 {
    let mut n = 0.0;
    for (x, y) in a.zip(b) {
        if x != y {
            n += 1.0;
        }
    }
    n
}

fn helper(_c: char, _t: &str) -> f64 {
    0.0
}

fn unrelated() -> u8 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(a: &str, b: &str, want: f64) {
        assert_eq!(distance(a, b), want);
    }

    #[test]
    fn distance_counts_changes() {
        check("ab", "ax", 1.0);
    }
}
"""
INTEGRATION = """\
#[test]
fn from_outside() {
    assert_eq!(calc::distance("a", "a"), 0.0);
    assert!(calc::Thing::new().ok());
}
"""


def crate(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir(parents=True)
    (tmp_path / "tests").mkdir(exist_ok=True)
    (tmp_path / "src" / "lib.rs").write_text(LIB)
    (tmp_path / "tests" / "outside.rs").write_text(INTEGRATION)
    (tmp_path / "target" / "debug").mkdir(parents=True)
    (tmp_path / "target" / "debug" / "build.rs").write_text("fn distance() {}\n")
    return tmp_path


def test_a_failing_unit_test_leads_through_its_helper_to_the_code_it_calls(
    tmp_path: Path,
) -> None:
    found = rustcalls.spans(crate(tmp_path), ["tests::distance_counts_changes"])
    named = [(s.path, s.name, s.start, s.end) for s in found]
    assert named[0] == ("src/lib.rs", "distance", 1, 6)
    assert ("src/lib.rs", "generic_distance", 8, 16) in named
    assert ("src/lib.rs", "helper", 18, 20) in named
    assert all(s.name not in ("check", "distance_counts_changes", "unrelated") for s in found)
    assert all(not s.path.startswith("target/") for s in found)
    scores = {s.name: s.score for s in found}
    assert scores["distance"] > scores["generic_distance"]


def test_an_integration_test_reaches_the_crate_and_a_common_name_is_shared(
    tmp_path: Path,
) -> None:
    repo = crate(tmp_path)
    (repo / "src" / "thing.rs").write_text(
        "pub struct Thing;\nimpl Thing {\n    pub fn new() -> Self {\n        Thing\n    }\n"
        "    pub fn ok(&self) -> bool {\n        false\n    }\n}\n"
    )
    (repo / "src" / "other.rs").write_text("pub fn new() -> u8 {\n    0\n}\n")
    found = {(s.path, s.name): s.score for s in rustcalls.spans(repo, ["from_outside"])}
    assert found[("src/lib.rs", "distance")] == 1.0
    assert found[("src/thing.rs", "ok")] == 1.0
    assert found[("src/thing.rs", "new")] == found[("src/other.rs", "new")] == 0.5


def test_no_failing_test_or_no_rust_reaches_nothing(tmp_path: Path) -> None:
    assert rustcalls.spans(crate(tmp_path / "a"), []) == []
    (tmp_path / "b").mkdir()
    assert rustcalls.spans(tmp_path / "b", ["tests::x"]) == []


def test_the_first_request_of_a_crate_shows_what_its_failing_test_calls(tmp_path: Path) -> None:
    """In a crate (a Cargo.toml at the root) the code reached is the Rust functions the failing
    test calls, the function it delegates to included, not the test's own lines alone."""
    repo = make_repo(tmp_path, None)
    crate(repo)
    (repo / "Cargo.toml").write_text('[package]\nname = "calc"\nversion = "1.0.0"\n')
    log = (
        "test tests::distance_counts_changes ... FAILED\n"
        "thread 'tests::distance_counts_changes' panicked at src/lib.rs:36:9:\n"
    )
    tests = ["tests::distance_counts_changes"]
    failure = agent_repo.failure(log).model_copy(update={"locations": [], "failing_tests": tests})
    shown = context.gather(fix_context(repo, failure=failure), 6_000).reached
    assert "--- src/lib.rs lines 1-6 (distance)" in shown
    assert "fn generic_distance<I: Iterator<Item = char>>" in shown
    assert "fn unrelated" not in shown
