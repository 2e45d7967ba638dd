"""Small real projects, one per ecosystem, each with a CI workflow whose test job fixbot infers
and one bug the fake model fixes: the zero-configuration end-to-end tests' projects."""

from __future__ import annotations

import json
import sys
import textwrap

PY = sys.executable


def workflow(setup_action: str, test: str) -> str:
    return textwrap.dedent(
        f"""\
        name: CI
        on: [push, pull_request]
        jobs:
          lint:
            runs-on: ubuntu-latest
            steps:
              - uses: actions/checkout@v4
              - run: echo lint
          test:
            runs-on: ${{{{ matrix.os }}}}
            strategy:
              matrix:
                os: [ubuntu-latest, windows-latest]
            steps:
              - uses: actions/checkout@v4
              - {setup_action}
              - name: Run tests
                run: {test}
        """
    )


# ecosystem -> (files, the file the model fixes, the buggy text, the fixed text)
PROJECTS: dict[str, tuple[dict[str, str], str, str, str]] = {
    "python": (
        {
            ".github/workflows/ci.yml": workflow(
                "uses: actions/setup-python@v5", f"{PY} -m pytest -q -p no:cacheprovider"
            ),
            "pyproject.toml": "[project]\nname = 'calc'\nversion = '0'\n",
            "calc.py": "def total(items):\n    return sum(items[1:])\n",
            "tests/test_calc.py": "import sys\nsys.path.insert(0, '.')\n"
            "from calc import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n",
        },
        "calc.py",
        "sum(items[1:])",
        "sum(items)",
    ),
    "node": (
        {
            ".github/workflows/ci.yml": workflow("uses: actions/setup-node@v4", "npm test"),
            "package.json": json.dumps({"name": "calc", "scripts": {"test": "node --test"}}),
            "sum.js": "exports.total = (items) => items.slice(1).reduce((a, b) => a + b, 0);\n",
            "test/sum.test.js": "const test = require('node:test');\n"
            "const assert = require('node:assert');\nconst { total } = require('../sum.js');\n"
            "test('total', () => assert.strictEqual(total([1, 2, 3]), 6));\n",
        },
        "sum.js",
        "items.slice(1).reduce",
        "items.reduce",
    ),
    "go": (
        {
            ".github/workflows/ci.yml": workflow("uses: actions/setup-go@v5", "go test ./..."),
            "go.mod": "module example.com/calc\n\ngo 1.19\n",
            "calc.go": "package calc\n\nfunc Total(items []int) int {\n\tsum := 0\n"
            "\tfor _, v := range items[1:] {\n\t\tsum += v\n\t}\n\treturn sum\n}\n",
            "calc_test.go": 'package calc\n\nimport "testing"\n\nfunc TestTotal(t *testing.T) {\n'
            '\tif got := Total([]int{1, 2, 3}); got != 6 {\n\t\tt.Fatalf("got %d", got)\n\t}\n}\n',
        },
        "calc.go",
        "range items[1:]",
        "range items",
    ),
    "rust": (
        {
            ".github/workflows/ci.yml": workflow(
                "uses: dtolnay/rust-toolchain@stable", "cargo test --offline"
            ),
            "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": "pub fn total(items: &[i32]) -> i32 {\n    items[1..].iter().sum()\n}\n\n"
            "#[cfg(test)]\nmod tests {\n    #[test]\n    fn total() {\n"
            "        assert_eq!(super::total(&[1, 2, 3]), 6);\n    }\n}\n",
        },
        "src/lib.rs",
        "items[1..].iter()",
        "items.iter()",
    ),
}

# ecosystem -> what its test runner prints for the bug (the failed job's log)
FAILURE_LOGS = {
    "python": "tests/test_calc.py F\n>       assert total([1, 2, 3]) == 6\nE       assert 5 == 6\n"
    "FAILED tests/test_calc.py::test_total - assert 5 == 6\n1 failed in 0.01s\n",
    "node": "not ok 1 - total\n  AssertionError [ERR_ASSERTION]: Expected values to be strictly "
    "equal:\n\n  5 !== 6\n\n# tests 1\n# pass 0\n# fail 1\n",
    "go": "--- FAIL: TestTotal (0.00s)\n    calc_test.go:7: got 5\nFAIL\n"
    "FAIL\texample.com/calc\t0.002s\nFAIL\n",
    "rust": "---- tests::total stdout ----\nthread 'tests::total' panicked at src/lib.rs:9:9:\n"
    "assertion `left == right` failed\n  left: 5\n right: 6\n\n"
    "test result: FAILED. 0 passed; 1 failed; 0 ignored\n",
}


def setup_step(ecosystem: str) -> str:
    """The name GitHub gives the project's set-up action step (`Run actions/setup-go@v5`)."""
    text = PROJECTS[ecosystem][0][".github/workflows/ci.yml"]
    return "Run " + text.split("- uses: ")[-1].split("\n")[0]


# the program each project's CI steps call (Debian's own Python has python3, not python)
TOOLCHAINS = {"python": "python", "node": "node", "go": "go", "rust": "cargo"}


def require_toolchain(ecosystem: str) -> None:
    """Skip the calling test when `ecosystem`'s tool chain is not on PATH (an ordinary user has
    no rustup of root's): the zero-configuration runs give the check only what is installed."""
    import shutil

    import pytest

    tool = TOOLCHAINS[ecosystem]
    if tool is not None and shutil.which(tool) is None:
        pytest.skip(f"{tool} is not on PATH: {ecosystem}'s project cannot be checked here")
