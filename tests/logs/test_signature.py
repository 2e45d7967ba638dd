"""Signatures, normalization, and the counts, locations and test ids parsed from logs."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.failure import Counts, Location
from fixbot.logs.condense import condense_text
from fixbot.logs.signature import (
    NOISE,
    failing_tests,
    failure_signature,
    normalize,
    parse_counts,
    parse_locations,
    timeout_signature,
)
from tests.fakes.paths import DATA

LOGS = DATA / "logs"


@pytest.mark.parametrize(
    ("noisy", "clean"),
    [
        ("\x1b[31mE   assert 1 == 2\x1b[0m", "E   assert 1 == 2"),
        ("at 2024-05-01T12:00:03.123Z failed", "at <time> failed"),
        ("2024-05-01 12:00:03,123 ERROR boom", "<time> ERROR boom"),
        ("started 12:00:03 stopped", "started <time> stopped"),
        ("1 failed in 0.12s", "1 failed in <duration>"),
        ("1 failed in 812.31s (0:13:32)", "1 failed in <duration>"),
        ("--- FAIL: TestX (0.00s)", "--- FAIL: TestX (<duration>)"),
        ("took 12ms, then 3 seconds", "took <duration>, then <duration>"),
        ("<Foo object at 0x7f3a2b1c4d50>", "<Foo object at 0x<addr>>"),
        ("open /tmp/pytest-of-ci/pytest-12/test_a0/x.txt", "open <tmp>"),
        ("at /var/folders/xy/abc123/T/tmpq1w2/x.py", "at <tmp>"),
        ("worker pid 4242 died; pid=77", "worker pid <pid> died; pid=<pid>"),
        ("thread 'tests::a' (5245) panicked", "thread 'tests::a' (<tid>) panicked"),
        ("id 123e4567-e89b-12d3-a456-426614174000", "id <uuid>"),
        ("E  assert 10 == 3", "E  assert 10 == 3"),  # values are not noise
        ("tests/test_x.py:12: AssertionError", "tests/test_x.py:12: AssertionError"),
    ],
)
def test_normalize(noisy: str, clean: str) -> None:
    assert normalize(noisy) == clean


def test_normalize_removes_the_repository_prefix() -> None:
    text = 'File "/home/runner/work/app/app/app/core.py", line 3'
    assert normalize(text, repo=Path("/home/runner/work/app/app")) == 'File "app/core.py", line 3'


def pytest_log(
    *,
    failing: tuple[tuple[str, str], ...] = (("test_total", "assert 4 == 3"),),
    passed: int = 10,
    seconds: str = "0.12",
    address: str = "0x7f3a2b1c4d50",
    stamp: str = "2024-05-01 12:00:03,123",
    tmp: str = "/tmp/pytest-of-ci/pytest-12",
    pid: int = 4242,
    color: bool = False,
    line: int = 9,
) -> str:
    """A pytest log with the given failures (test name, E line) and the given noise."""
    red, reset = ("\x1b[31m", "\x1b[0m") if color else ("", "")
    parts = ["=================================== FAILURES ==================================="]
    for name, message in failing:
        parts += [
            f"___________________________ {name} ___________________________",
            f"    def {name}(tmp_path):",
            ">       assert total(load(tmp_path)) == 3",
            f"{red}E       {message}{reset}",
            f"E        +  where obj = <Box object at {address}>",
            f"tests/test_total.py:{line}: AssertionError",
            "------------------------------ Captured log call -------------------------------",
            f"INFO     app:core.py:12 {stamp} loaded {tmp}/data.json in pid {pid}",
        ]
    parts.append("=========================== short test summary info ============================")
    parts += [f"FAILED tests/test_total.py::{name} - {message}" for name, message in failing]
    parts.append(f"======== {len(failing)} failed, {passed} passed in {seconds}s ========")
    return "\n".join(parts)


BASE = pytest_log()
SAME = [
    pytest_log(seconds="3.51"),
    pytest_log(address="0x55d0c0ffee00"),
    pytest_log(stamp="2025-01-02 23:59:59,999"),
    pytest_log(tmp="/tmp/pytest-of-runner/pytest-873"),
    pytest_log(pid=31337),
    pytest_log(color=True),
    pytest_log(passed=11),
    pytest_log(line=14),  # the same failure after an edit moved the code
]
TWO = (("test_total", "assert 4 == 3"), ("test_mean", "assert 2.5 == 2"))
DIFFERENT = [
    pytest_log(failing=(("test_mean", "assert 4 == 3"),)),  # another test fails
    pytest_log(failing=(("test_total", "assert 5 == 3"),)),  # another assertion value
    pytest_log(failing=(("test_total", "TypeError: unsupported operand"),)),  # another type
    pytest_log(failing=TWO),  # one more test fails
]


@pytest.mark.parametrize("noisy", SAME)
def test_signature_is_stable_across_noisy_reruns(noisy: str) -> None:
    assert noisy != BASE
    assert failure_signature(noisy) == failure_signature(BASE)


@pytest.mark.parametrize("changed", DIFFERENT)
def test_signature_changes_with_the_failure(changed: str) -> None:
    assert failure_signature(changed) != failure_signature(BASE)


def test_signature_ignores_test_order() -> None:
    assert failure_signature(pytest_log(failing=TWO)) == failure_signature(
        pytest_log(failing=TWO[::-1])
    )


def test_signature_is_a_sha256_hex_digest() -> None:
    signature = failure_signature(BASE)
    assert len(signature) == 64 and int(signature, 16) >= 0


def test_signature_ignores_the_checkout_path_when_given() -> None:
    one = '/home/a/app/core.py:3: error: Name "x" is not defined  [name-defined]'
    two = one.replace("/home/a/app", "/work/b/app")
    assert failure_signature(one) != failure_signature(two)
    assert failure_signature(one, repo=Path("/home/a/app")) == failure_signature(
        two, repo=Path("/work/b/app")
    )


def test_an_unrecognized_failure_still_has_a_stable_signature() -> None:
    log = "checking docs...\n  docs/cli.md differs\n{} passed in {}s\nout of date at {}\n"
    first = log.format(3, "0.5", "12:00:01")
    second = log.format(4, "0.9", "13:10:59")
    assert failure_signature(first) == failure_signature(second)
    assert failure_signature(first) != failure_signature(first.replace("cli.md", "api.md"))


def test_timeout_signature() -> None:
    log = "collected 3 items\ntests/test_io.py::test_read PASSED [ 33%]\n..\n"
    note = "[fixbot] timed out after {} s: the process group was terminated"
    assert timeout_signature(log + note.format(10)) == timeout_signature(log + note.format(600))
    hang_elsewhere = log.replace("test_read PASSED [ 33%]", "test_write")
    assert timeout_signature(log) != timeout_signature(hang_elsewhere)
    assert timeout_signature(log) != failure_signature(log)


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("assertion.log", Counts(failed=4, passed=1)),  # pytest
        ("syntax.log", Counts(errors=1)),  # pytest -q, collection error
        ("assertion-unittest.log", Counts(passed=1, failed=1, errors=1, skipped=1)),
        ("assertion-jest.log", Counts(failed=1, passed=1, skipped=0)),
        ("test_failure.log", Counts(failed=1, passed=2)),  # go test -v
        ("exception.log", Counts(failed=1)),  # go test without -v: passes not listed
        ("assertion-cargo.log", Counts(passed=0, failed=1, skipped=0)),
        ("compile.log", Counts(errors=1)),  # cargo build
        ("type.log", Counts(errors=1)),  # mypy
        ("lint.log", Counts(errors=3)),  # ruff
        ("lint-eslint.log", Counts(errors=2)),
        ("assertion-node.log", Counts(passed=1, failed=1, skipped=0)),  # TAP
        ("unknown.log", Counts()),
    ],
)
def test_parse_counts_per_tool(name: str, counts: Counts) -> None:
    assert parse_counts((LOGS / name).read_text()) == counts


def test_parse_counts_sums_over_tools() -> None:
    text = (LOGS / "lint.log").read_text() + (LOGS / "assertion.log").read_text()
    assert parse_counts(text) == Counts(failed=4, passed=1, errors=3)
    assert parse_counts(text).problems == 7


def test_parse_counts_clean_checkers_report_zero_errors() -> None:
    assert parse_counts("Success: no issues found in 3 source files\n") == Counts(errors=0)
    assert parse_counts("All checks passed!\n") == Counts(errors=0)


def test_parse_locations() -> None:
    text = (
        "calc.py:10: error: Incompatible return value type\n"
        "m.c:4:12: error: 'y' undeclared\n"
        " --> src/main.rs:2:18\n"
        "src/cart.ts(27,5): error TS2322: Type 'string'\n"
        '  File "/repo/app/core.py", line 21, in parse\n'
        '  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads\n'
        "calc.py:10: error: Incompatible return value type\n"
        "connect to 127.0.0.1:5432 and example.com:443\n"
    )
    assert parse_locations(text, Path("/repo")) == [
        Location(path="calc.py", line=10),
        Location(path="m.c", line=4, column=12),
        Location(path="src/main.rs", line=2, column=18),
        Location(path="src/cart.ts", line=27, column=5),
        Location(path="app/core.py", line=21),
        Location(path="/usr/lib/python3.11/json/__init__.py", line=346),
    ]


def test_parse_locations_keeps_paths_as_printed_without_a_repo() -> None:
    text = '  File "/repo/app/core.py", line 21\n./cmd/main.go:5:2: undefined: x\n'
    assert parse_locations(text) == [
        Location(path="/repo/app/core.py", line=21),
        Location(path="cmd/main.go", line=5, column=2),
    ]


@pytest.mark.parametrize(
    ("name", "tests"),
    [
        (
            "assertion.log",
            [
                "tests/test_calc.py::test_add",
                "tests/test_calc.py::test_logs",
                "tests/test_calc.py::test_param[1]",
                "tests/test_calc.py::test_param[2]",
            ],
        ),
        ("assertion-unittest.log", ["t_unit.TestX.test_a", "t_unit.TestX.test_b"]),
        ("test_failure.log", ["TestSplitFields"]),
        ("assertion-cargo.log", ["tests::it_works"]),
        ("assertion-jest.log", ["Cart \u203a applies the discount once"]),
        ("assertion-node.log", ["adds"]),
        ("type.log", []),
    ],
)
def test_failing_tests_per_tool(name: str, tests: list[str]) -> None:
    assert failing_tests((LOGS / name).read_text()) == tests


def test_failing_tests_other_formats() -> None:
    text = (
        "tests/test_a.py::test_z FAILED                [ 50%]\n"
        "ERROR tests/test_b.py::test_setup - RuntimeError: db\n"
        "FAIL: test_old (tests.test_c.TestOld)\n"
        "    --- FAIL: TestParse/empty_input (0.00s)\n"
        "FAILED tests/test_a.py::test_z - assert 0\n"
    )
    assert failing_tests(text) == [
        "TestParse/empty_input",
        "tests.test_c.TestOld.test_old",
        "tests/test_a.py::test_z",
        "tests/test_b.py::test_setup",
    ]


@pytest.mark.parametrize(
    ("noisy", "clean"),
    [
        (
            "At index 0 diff: <py3-none-any @ 140613478327232>",
            "At index 0 diff: <py3-none-any @ <id>>",
        ),
        ("assert [<py3-none-an...875645705280>] == []", "assert [<py3-none-an...<id>>] == []"),
        ("<Session id=140190998801984 at 140190998805504>", "<Session id=<id> at <id>>"),
        ("Connection refused: 127.0.0.1:54321", "Connection refused: 127.0.0.1:<port>"),
        ("connection refused to 127.0.0.1:5432", "connection refused to 127.0.0.1:5432"),
        ("wrote /work/tmpk3j_x9zq/out.txt", "wrote /work/tmp<name>/out.txt"),
        # meaningful numbers stay: values compared, line numbers, short ids, versions
        ("E  assert 1 == 2", "E  assert 1 == 2"),
        ("E  assert 123456 == 123457", "E  assert 123456 == 123457"),
        ("tests/test_tags.py:10: AssertionError", "tests/test_tags.py:10: AssertionError"),
        ("<User @ 42> id=7", "<User @ 42> id=7"),
        ("failed at line 1234567 of data.csv", "failed at line 1234567 of data.csv"),
        ("tmpfiles are kept", "tmpfiles are kept"),
    ],
)
def test_normalize_masks_run_specific_ids(noisy: str, clean: str) -> None:
    assert normalize(noisy) == clean


def test_decimal_object_ids_do_not_change_the_signature_of_a_real_rerun() -> None:
    """packaging's `Tag` prints `<py3-none-any @ id(self)>`: two real runs of the same failing
    tests (tests/data/logs/reruns/) differ only in those ids and the duration."""
    first, second = ((LOGS / "reruns" / f"packaging-tags-{n}.log").read_text() for n in (1, 2))
    assert first != second
    assert failure_signature(condense_text(first)) == failure_signature(condense_text(second))


def test_the_id_masks_touch_no_line_of_the_existing_corpus() -> None:
    """No regression: the new masks (decimal ids, ports, temporary names) change no line of
    the logs and summaries written before them, whose numbers are all meaningful."""
    corpus = [*sorted(LOGS.glob("*.log")), *sorted((DATA / "summaries").glob("*.txt"))]
    masks = [
        pattern
        for pattern, replacement in NOISE
        if "<id>" in replacement or "<port>" in replacement or "<name>" in replacement
    ]
    assert len(masks) == 4
    touched = [
        f"{path.name}: {line}"
        for path in corpus
        for line in path.read_text().splitlines()
        if any(mask.search(line) for mask in masks)
    ]
    assert touched == []
