"""The runners' structured per-test reports: which check commands can be asked for one, how,
and what a real report says (pytest's JUnit XML, written by the pytest under test here; jest's,
vitest's and go test's, as the real tools wrote them: tests/data/reports, see its README)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.logs.dialects import cargo, go, report_for
from fixbot.logs.dialects.base import jest_outcomes, junit_outcomes
from fixbot.logs.signature import parse_counts
from fixbot.process.shellwords import words

REPORTS = Path(__file__).parent.parent / "data" / "reports"


@pytest.mark.parametrize(
    ("command", "asked"),
    [
        ("pytest -q", True),
        ("python -m pytest tests", True),
        (".venv/bin/pytest -x", True),
        ("sh check.sh", False),
        ("make test", False),
        # two runs of pytest would write one file twice: the report would speak for one
        ("pytest a && pytest b", False),
    ],
)
def test_a_report_is_asked_of_a_command_that_runs_pytest_once(command: str, asked: bool) -> None:
    assert (report_for(words(command)) is not None) is asked


def asked(command: str, path: str = "/r/out.json") -> str | None:
    """The command fixbot runs to have `command`'s runner write its report, None: not asked."""
    report = report_for(words(command))
    return None if report is None else report.command(command, path)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("pytest -q", "pytest -q"),  # asked through PYTEST_ADDOPTS: the command is unchanged
        ("npx jest --ci", "npx jest --json --outputFile=/r/out.json --ci"),
        ("node_modules/.bin/jest", "node_modules/.bin/jest --json --outputFile=/r/out.json"),
        ("npx jest 'a b'", "npx jest --json --outputFile=/r/out.json 'a b'"),
        (
            "npx vitest run src",
            "npx vitest run --reporter=default --reporter=json --outputFile.json=/r/out.json src",
        ),
        ("go test ./...", "go test -json ./..."),
        ("go test ./... -args -v", "go test -json ./... -args -v"),  # before the binary's words
        ("go test -json ./...", "go test -json ./..."),
        (
            "cargo +nightly test",
            "cargo +nightly test -- -Z unstable-options --format json",
        ),
        (
            "cargo +nightly test --lib -- --nocapture",
            "cargo +nightly test --lib -- -Z unstable-options --format json --nocapture",
        ),
        ("cargo test", None),  # a stable libtest refuses -Z: exit code only
        # jest run some other way: the words that reach it are not the check's to change
        ("npm test", None),
        ("yarn jest", None),
        ("CI=1 npx jest", None),
        ("npx jest *.test.js", None),  # quoting the glob again would change what jest gets
        ("npx jest --json", None),  # the project's own JSON request stands
        ("npx vitest --reporter=verbose", None),
        ("go vet ./... && go test ./...", None),  # -json would change go vet too
        ("npx jest a && npx jest b", None),
    ],
)
def test_a_runner_asked_on_its_command_line_is_asked_only_when_the_check_is_its_one_command(
    command: str, expected: str | None
) -> None:
    assert asked(command) == expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            "npx jest --ci",
            "npx jest --reporters=default --reporters=/o/r.cjs --json --outputFile=/r/out.json"
            " --ci",
        ),
        (
            "npx vitest run src",
            "npx vitest run --reporter=default --reporter=json --reporter=/o/r.cjs"
            " --outputFile.json=/r/out.json src",
        ),
        # the project's own reporters stand: the report is asked, the run is not observed
        (
            "npx jest --reporters=jest-junit",
            "npx jest --json --outputFile=/r/out.json --reporters=jest-junit",
        ),
        ("pytest -q", "pytest -q"),  # pytest's observer is a plugin, not a reporter
        ("go test ./...", "go test -json ./..."),
    ],
)
def test_jest_and_vitest_are_given_fixbots_reporter_beside_their_json_report(
    command: str, expected: str | None
) -> None:
    """fixbot's reporter (`fixbot/observe/node/reporter.cjs`) is added where the JSON report is
    asked, with the runner's own terminal output (`default`) kept."""
    report = report_for(words(command))
    assert (None if report is None else report.command(command, "/r/out.json", "/o/r.cjs")) == (
        expected
    )


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # node running the runner's script: the process fixbot starts is the runner's (round 34)
        (
            "node node_modules/.bin/jest --ci",
            "node node_modules/.bin/jest --reporters=default --reporters=/o/r.cjs --json"
            " --outputFile=/r/out.json --ci",
        ),
        (
            "node --experimental-vm-modules --max-old-space-size=4096"
            " node_modules/jest/bin/jest.js",
            "node --experimental-vm-modules --max-old-space-size=4096"
            " node_modules/jest/bin/jest.js --reporters=default --reporters=/o/r.cjs --json"
            " --outputFile=/r/out.json",
        ),
        (
            "node ./node_modules/vitest/vitest.mjs run",
            "node ./node_modules/vitest/vitest.mjs run --reporter=default --reporter=json"
            " --reporter=/o/r.cjs --outputFile.json=/r/out.json",
        ),
        # node options that run other code first or instead, or a value in its own word: not
        # the runner run directly
        ("node -r ./setup.js node_modules/.bin/jest", None),
        ("node --require=./setup.js node_modules/.bin/jest", None),
        ("node -e -1 node_modules/.bin/jest", None),
        ("node --inspect node_modules/.bin/jest", None),
        ("node --max-old-space-size 4096 node_modules/.bin/jest", None),
        ("node scripts/run.js node_modules/.bin/jest", None),
        ("nodejs node_modules/.bin/jest", None),
        # the entry script's name alone is no runner's
        ("node node_modules/other/bin/jest.js", None),
    ],
)
def test_the_runner_run_by_node_is_asked_and_observed_as_the_runner_itself(
    command: str, expected: str | None
) -> None:
    """`node [kept options] <path naming jest or vitest>` (`runner_at`, `NODE_KEPT`,
    `names_runner`): the JSON report and fixbot's reporter named after the path."""
    report = report_for(words(command))
    found = None if report is None else report.command(command, "/r/out.json", "/o/r.cjs")
    assert found == expected


def test_the_request_keeps_the_checks_own_pytest_addopts() -> None:
    report = report_for(["pytest"])
    assert report is not None
    env = report.ask("/tmp/r/junit.xml", {"PYTEST_ADDOPTS": "-p no:cacheprovider"})
    assert env["PYTEST_ADDOPTS"].startswith("-p no:cacheprovider --junitxml /tmp/r/junit.xml")


@pytest.mark.slow
def test_pytest_writes_the_report_the_dialect_reads(tmp_path: Path) -> None:
    """A real pytest run, asked as fixbot asks it; the `atexit` attack exits 0, the report
    still says the test failed."""
    (tmp_path / "test_x.py").write_text(
        "import atexit, os\n\natexit.register(os._exit, 0)\n\n\n"
        "def test_ok():\n    pass\n\n\ndef test_bad():\n    assert 1 == 2\n\n\n"
        "import pytest\n\n\n@pytest.mark.skip\ndef test_skipped():\n    pass\n",
        encoding="utf-8",
    )
    report = report_for(["pytest"])
    assert report is not None
    path = tmp_path / "out" / report.file_name
    env = {**os.environ, **report.ask(str(path), {})}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_x.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0  # the attack works on the exit code
    outcomes = report.read(path.read_text(encoding="utf-8"))
    assert outcomes == {
        "test_x::test_ok": "passed",
        "test_x::test_bad": "failed",
        "test_x::test_skipped": "skipped",
    }


def test_what_is_not_a_junit_report_is_refused() -> None:
    with pytest.raises(ValueError):
        junit_outcomes("<html/>")
    with pytest.raises(ValueError):
        junit_outcomes("not xml")


def test_jest_and_vitest_json_reports_read_by_test() -> None:
    """Real reports (jest 30.5.2, vitest 4.1.12): a failing, a passing, a skipped and a todo
    test, and a test file that does not load (one failed id, the file)."""
    for name, root in (("jest.json", "/tmp/vjs/j"), ("vitest.json", "/tmp/vjs/v")):
        outcomes = jest_outcomes((REPORTS / name).read_text(encoding="utf-8"))
        assert outcomes == {
            f"{root}/app.test.js::add > adds": "failed",
            f"{root}/app.test.js::add > zero": "passed",
            f"{root}/app.test.js::add > later": "skipped",
            f"{root}/app.test.js::add > someday": "skipped",
            f"{root}/broken.test.js": "failed",
        }, name
    with pytest.raises(ValueError):
        jest_outcomes('{"numTotalTests": 0}')
    with pytest.raises(ValueError):
        jest_outcomes("Tests: 1 failed")
    with pytest.raises(ValueError):  # the report is the project's process's: any shape may come
        jest_outcomes('{"testResults": [1]}')


def test_go_test_json_read_by_test_and_its_log_given_back_its_text() -> None:
    """A real `go test -json ./...` (go 1.19.8, standard error merged): a failing, a passing, a
    skipped test, a subtest, and a package that does not build (its line is plain text)."""
    output = (REPORTS / "go-test.log").read_text(encoding="utf-8")
    assert go.outcomes(output) == {
        "example.com/app::TestAdd": "failed",
        "example.com/app::TestZero": "passed",
        "example.com/app::TestSkip": "skipped",
        "example.com/app::TestSub": "passed",
        "example.com/app::TestSub/one": "passed",
        "example.com/app/broken": "failed",
    }
    text = go.plain(output)
    assert '"Action"' not in text and "--- FAIL: TestAdd (0.00s)\n" in text
    assert "broken/broken.go:3:23: cannot use" in text  # the compiler's own line, kept
    counts = parse_counts(text)
    assert (counts.failed, counts.passed, counts.skipped, counts.errors) == (1, 3, 1, 1)
    with pytest.raises(ValueError):
        go.outcomes(go.plain(output))  # the text alone is no report


def test_libtest_json_read_by_test_and_its_log_given_back_its_text() -> None:
    """A real `cargo +nightly test --no-fail-fast -- -Z unstable-options --format json` (cargo
    1.97.0-nightly, standard error merged): a unit test binary with a failing, a passing and an
    ignored test, an integration test and a doc test, each named after its binary's source."""
    output = (REPORTS / "cargo-test.log").read_text(encoding="utf-8")
    assert cargo.outcomes(output) == {
        "src/lib.rs::tests::adds": "failed",
        "src/lib.rs::tests::zero": "passed",
        "src/lib.rs::tests::later": "skipped",
        "tests/outside.rs::from_outside": "passed",
        "app (doc)::src/lib.rs - add (line 3)": "passed",
    }
    text = cargo.plain(output)
    assert '"type"' not in text and "test tests::adds ... FAILED\n" in text
    assert "---- tests::adds stdout ----\nchecking 2 + 2\n" in text
    counts = parse_counts(text)
    assert (counts.failed, counts.passed, counts.skipped) == (1, 3, 1)
    with pytest.raises(ValueError):
        cargo.outcomes(text)
    forged = '{ "type": "suite", "event": "ok", "passed": 1, "exec_time": "soon" }\n'
    assert "test result: ok. 1 passed;" in cargo.plain(forged)  # no field is trusted to parse
