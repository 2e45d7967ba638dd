"""The tampering rules take each language's facts from its ecosystem (`fixbot.ecosystems`):
Cargo's integration tests and a node test helper are tests, Rust's `#[ignore]` and RSpec's
`xit` skip, and `rustfmt.toml` configures the check."""

from __future__ import annotations

import pytest

from fixbot.agent.guard import tampering
from fixbot.tamper.changes import Change, is_test_file, of_the_tests
from fixbot.tamper.cheats import detect
from fixbot.tamper.facts import defined_tests

RUST = "use app::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n"
SPEC = "RSpec.describe Parser do\n  it 'parses' do\n    expect(parse('1')).to eq(1)\n  end\nend\n"


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("tests/api.rs", True),
        ("tests/helpers.mjs", True),
        ("__tests__/setup.cjs", True),
        ("spec/parser_spec.rb", True),
        ("src/api.rs", False),
        ("lib/helpers.mjs", False),
    ],
)
def test_the_test_files_are_every_ecosystems(path: str, test: bool) -> None:
    assert is_test_file(path) is test
    assert of_the_tests(Change(path, "a", "b")) is test  # verification puts it back


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        (Change("tests/api.rs", RUST, None), "test-removed"),
        (Change("tests/api.rs", RUST, RUST.replace("#[test]\nfn adds", "fn adds")), "test-removed"),
        (
            Change("tests/api.rs", RUST, RUST.replace("assert_eq!(add(2, 2), 4);", "")),
            "assert-weakened",
        ),
        (
            Change("tests/api.rs", RUST, RUST.replace("#[test]", "#[test]\n#[ignore]")),
            "test-skipped",
        ),
        (Change("spec/parser_spec.rb", SPEC, SPEC.replace("  it '", "  xit '")), "test-skipped"),
        (Change("tests/helpers.mjs", "export const x = 1\n", None), "test-removed"),
        (Change("rustfmt.toml", "", "max_width = 200\n"), "config-changed"),
        (Change(".rspec", "--require spec_helper\n", "--tag ~slow\n"), "config-changed"),
    ],
)
def test_each_ecosystems_tampering_is_seen(change: Change, rule: str) -> None:
    assert rule in [cheat.rule for cheat in detect([change])]
    if change.new is not None:  # the edit-time guard refuses the same edit
        assert tampering(change.path, change.old, change.new) is not None


def test_a_rust_test_is_named_when_it_goes() -> None:
    two = RUST + "\n#[tokio::test]\n#[should_panic]\nasync fn overflows() {\n    add(1, 2);\n}\n"
    assert defined_tests(two) == {"adds", "overflows"}
    found = detect([Change("tests/api.rs", two, RUST)])
    assert [c.evidence for c in found] == ["test(s) overflows removed"]
