"""Classification: every rule on a realistic log, exit codes, and the precedence between rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.failure import ErrorClass
from fixbot.logs.classify import RULES, Rule, classify
from fixbot.logs.condense import condense_file
from tests.fakes.paths import DATA

LOGS = DATA / "logs"
EXIT_CODES = {"command_not_found": 127, "permission": 126, "out_of_memory": 137}
EXPECTED_CLASS = {
    "timeout": ErrorClass.TRANSIENT,
    "rate_limit": ErrorClass.TRANSIENT,
    "server_error": ErrorClass.TRANSIENT,
    "network": ErrorClass.TRANSIENT,
    "timed_out": ErrorClass.TRANSIENT,
    "schema": ErrorClass.PERMANENT,
    "command_not_found": ErrorClass.PERMANENT,
    "cd_failed": ErrorClass.PERMANENT,
    "auth": ErrorClass.PERMANENT,
    "permission": ErrorClass.PERMANENT,
    "disk_full": ErrorClass.PERMANENT,
    "missing_dependency": ErrorClass.PERMANENT,
    "out_of_memory": ErrorClass.PERMANENT,
}


def samples(rule: Rule) -> list[Path]:
    """The sample logs for `rule`: `<rule>.log` and `<rule>-<variant>.log`."""
    return sorted(LOGS.glob(f"{rule.name}.log")) + sorted(LOGS.glob(f"{rule.name}-*.log"))


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_every_rule_is_triggered_by_a_sample_log(rule: Rule) -> None:
    found = samples(rule)
    assert found, f"write tests/data/logs/{rule.name}.log: a real-looking log for this rule"
    for path in found:
        condensed = condense_file(path)
        result = classify(
            condensed,
            exit_code=EXIT_CODES.get(rule.name, 1),
            timed_out=rule.name == "timeout",
        )
        assert (result.rule, result.category) == (rule.name, rule.category), path.name
        assert result.error_class is EXPECTED_CLASS.get(rule.name, ErrorClass.FIXABLE)
        by_text_alone = classify(condensed, exit_code=1, timed_out=False)
        assert by_text_alone.rule == rule.name, f"{path.name}: the pattern alone must decide"


def test_every_sample_log_belongs_to_a_rule() -> None:
    names = {rule.name for rule in RULES}
    assert {path.stem.split("-")[0] for path in LOGS.glob("*.log")} <= names


@pytest.mark.parametrize("rule", [r for r in RULES if r.exit_codes], ids=lambda r: r.name)
def test_exit_codes_decide_without_output(rule: Rule) -> None:
    for code in rule.exit_codes:
        assert classify("", exit_code=code, timed_out=False).rule == rule.name


def test_a_timeout_wins_over_everything() -> None:
    text = (LOGS / "assertion.log").read_text()
    assert classify(text, exit_code=None, timed_out=True).rule == "timeout"
    assert classify(text, exit_code=127, timed_out=True).rule == "timeout"


def test_exit_127_wins_over_the_output() -> None:
    text = (LOGS / "network.log").read_text()
    assert classify(text, exit_code=127, timed_out=False).rule == "command_not_found"


def test_an_assertion_wins_over_network_words_in_captured_logs() -> None:
    text = (LOGS / "assertion.log").read_text()
    assert "connection refused" in text  # in the captured log of test_logs
    assert classify(text, exit_code=1, timed_out=False).rule == "assertion"


def test_a_generic_failure_wins_over_network_words_in_captured_logs() -> None:
    text = (
        "E       KeyError: 'total'\n"
        "------------------------------ Captured log call -------------------------------\n"
        "WARNING  app.cache:cache.py:40 redis: Connection refused, using memory cache\n"
        "FAILED tests/test_report.py::test_totals - KeyError: 'total'\n"
    )
    result = classify(text, exit_code=1, timed_out=False)
    assert (result.rule, result.error_class) == ("exception", ErrorClass.FIXABLE)


def test_network_words_decide_when_nothing_else_does() -> None:
    text = (
        "WARNING: Retrying (Retry(total=4, connect=None, read=None)) after connection broken by "
        "'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at "
        "0x7f00>: Failed to establish a new connection: [Errno -3] Temporary failure in name "
        "resolution')': /simple/requests/\n"
        "ERROR: Could not find a version that satisfies the requirement requests\n"
        "ERROR: No matching distribution found for requests\n"
    )
    assert classify(text, exit_code=1, timed_out=False).rule == "network"


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("E       assert 401 == 200", "assertion"),  # a status code in a value is no auth error
        ("E       assert response.status_code == 503", "assertion"),
        ("E       MemoryError", "exception"),  # raised by the code: fixable
        ("E       PermissionError: [Errno 13] Permission denied: '/etc/app.conf'", "exception"),
        ("E       ModuleNotFoundError: No module named 'requests'", "import"),
        ("E       ConnectionRefusedError: [Errno 111] Connection refused", "network"),
        (
            "E       requests.exceptions.HTTPError: 503 Server Error: Service Unavailable",
            "server_error",
        ),
        ("fatal: Authentication failed for 'https://github.com/o/r.git/'", "auth"),
        ("ERROR: [Errno 28] No space left on device", "disk_full"),
        ("FATAL ERROR: Reached heap limit - JavaScript heap out of memory", "out_of_memory"),
    ],
)
def test_error_line_decisions(line: str, rule: str) -> None:
    assert classify(line + "\n", exit_code=1, timed_out=False).rule == rule


def test_an_empty_log_is_unknown_and_fixable() -> None:
    result = classify("", exit_code=1, timed_out=False)
    assert (result.rule, result.error_class) == ("unknown", ErrorClass.FIXABLE)


def test_rule_names_are_unique() -> None:
    assert len({rule.name for rule in RULES}) == len(RULES)
    assert RULES[-1].name == "unknown"


DESIGN_PHRASES = [
    *[
        (p, ErrorClass.TRANSIENT)
        for p in (
            "timeout",
            "ETIMEDOUT",
            "timed out",
            "connection refused",
            "ECONNREFUSED",
            "503",
            "429",
            "network error",
            "socket hang up",
        )
    ],
    *[
        (p, ErrorClass.FIXABLE)
        for p in (
            "SyntaxError",
            "TypeError",
            "Cannot read property",
            "undefined is not",
            "ImportError",
            "ModuleNotFoundError",
            "ReferenceError",
            "is not defined",
            "NullPointerException",
        )
    ],
    *[
        (p, ErrorClass.PERMANENT)
        for p in (
            "authentication failed",
            "401",
            "permission denied",
            "403",
            "invalid API key",
            "token expired",
            "schema violation",
            "constraint violation",
        )
    ],
]


@pytest.mark.parametrize(("phrase", "expected"), DESIGN_PHRASES)
def test_every_phrase_of_the_design_classifies_as_it_says(
    phrase: str, expected: ErrorClass
) -> None:
    for line in (f"Error: {phrase}\n", f"request failed: {phrase}\n"):
        assert classify(line, exit_code=1, timed_out=False).error_class is expected, line


PERMANENT_PHRASES = [p for p, c in DESIGN_PHRASES if c is ErrorClass.PERMANENT]


@pytest.mark.parametrize("phrase", PERMANENT_PHRASES)
def test_a_permanent_phrase_inside_a_test_report_loses_to_the_test_failure(phrase: str) -> None:
    pytest_log = (
        "=================================== FAILURES ===================================\n"
        "_________________________________ test_login __________________________________\n"
        "    def test_login():\n"
        ">       assert api.login('x') == 'ok'\n"
        f"E       AssertionError: assert '{phrase}' == 'ok'\n"
        "tests/test_api.py:9: AssertionError\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_api.py::test_login - AssertionError\n"
        "============================== 1 failed in 0.12s ===============================\n"
    )
    jest_log = (
        "  \u25cf api \u203a rejects a bad login\n\n"
        "    expect(received).toBe(expected)\n\n"
        f'    Expected: "ok"\n    Received: "{phrase}"\n\n'
        "Test Suites: 1 failed, 1 total\n"
    )
    for log in (pytest_log, jest_log):
        result = classify(log, exit_code=1, timed_out=False)
        assert result.error_class is ErrorClass.FIXABLE
        assert phrase in result.note and "the test failure wins" in result.note


def test_a_permanent_phrase_outside_any_test_report_stays_permanent() -> None:
    log = (
        "_________________________________ test_login __________________________________\n"
        "E       AssertionError\n"
        "=========================== short test summary info ============================\n"
        "fatal: Authentication failed for 'https://github.com/o/r.git/'\n"
    )
    result = classify(log, exit_code=1, timed_out=False)
    assert (result.error_class, result.rule, result.note) == (ErrorClass.PERMANENT, "auth", "")


def test_the_class_comes_from_the_failing_step_not_a_step_that_passed() -> None:
    """`npm test` ran eslint (3 warnings, 0 errors: it passed) and then tape, whose test threw
    a RangeError: the class is the tape step's, never `lint`."""
    condensed = condense_file(LOGS / "exception-tape-after-eslint.log")
    assert "\u2716 3 problems (0 errors, 3 warnings)" in condensed
    assert classify(condensed, exit_code=1, timed_out=False).rule == "exception"
    red_lint = condensed.replace("(0 errors, 3 warnings)", "(1 error, 2 warnings)")
    assert classify(red_lint, exit_code=1, timed_out=False).rule == "lint"
