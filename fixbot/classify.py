"""Classify a failure as transient, fixable or permanent, by a table of rules.

`RULES` is ordered; the order is the precedence. `classify` decides in four steps, first hit wins:

1. `timed_out` -> the `timeout` rule (transient: re-run after backoff).
2. The shell's exit code, for the rules that list one: 127 command not found, 126 not
   executable (permission), 137 killed by SIGKILL (out of memory: the kernel's OOM killer is
   the usual sender on CI; a timeout is step 1).
3. The evidence, strongest first; within each step the rules in table order:
   a. specific rules against the error lines (`fixbot.condense.error_lines`: `E ...`,
      `FAILED ...`, exception lines, compiler errors, ...), where the failure states itself:
      a test failing on `AssertionError` is fixable even when its captured log says
      "connection refused", and a test whose own error is `ConnectionRefusedError` is transient;
   b. specific fixable rules against the whole text (jest prints `expect(received)` under its
      `●` line; node's TAP puts `AssertionError` in a YAML block);
   c. generic rules (an uncaught exception, failing tests) against the error lines, so a
      `KeyError` test failure is not taken for a network hiccup its captured log mentions;
   d. every rule against the whole text (e.g. pip's "Temporary failure in name resolution"
      in a warning line);
   then the catch-all `unknown` (fixable).

Table order: environment problems no code change can fix (permanent:
command not found, authentication, permission, disk full, out of memory) before specific code
errors (fixable: syntax, import, name, type, assertion, compile, lint) before infrastructure
hiccups (transient: rate limit, server error, network) before generic failures (fixable:
an uncaught exception, failing tests) before `unknown`.

Decisions worth knowing:
- A missing module (`ModuleNotFoundError`, `Cannot find module`) is fixable ("import"): it is
  often a typo or a module the code must add, and a missing dependency can be declared in the
  project's requirements; the circuit breaker stops the loop when the same error persists.
- Python's `MemoryError` raised in a test is an exception in the code (fixable, "exception");
  only the environment's out-of-memory signs (exit 137, "Killed", ENOMEM, heap exhausted) are
  permanent.
- `PermissionError` raised by the code under test is fixable; the shell failing to execute the
  command ("Permission denied", exit 126), EACCES and HTTP 403 are permanent.
- HTTP status words count only with context ("401 Unauthorized", "status code 503"), so a test
  asserting `assert 401 == 200` stays an assertion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fixbot.condense import ANSI_RE, error_lines
from fixbot.models import Classification, ErrorClass

HTTP = r"\b(?:HTTP(?:/[\d.]+)?|[Ss]tatus(?: code)?:?|code)\s?"  # before a status number
SHELL = r"(?:^|\n)\S*(?:sh|make): (?:\d+: |line \d+: )?"  # `/bin/sh: 1: `, `bash: line 1: `


@dataclass(frozen=True)
class Rule:
    """One classification rule: when `pattern` is found (or the exit code is in `exit_codes`),
    the failure gets `error_class` and `category`; `name` identifies the rule in reports."""

    name: str
    error_class: ErrorClass
    category: str
    pattern: re.Pattern[str]
    exit_codes: frozenset[int] = field(default_factory=frozenset)
    generic: bool = False  # says only "something failed": weaker than any specific rule


def _rule(name: str, error_class: ErrorClass, pattern: str, *codes: int) -> Rule:
    return Rule(name, error_class, name, re.compile(pattern, re.MULTILINE), frozenset(codes))


def _generic(name: str, pattern: str) -> Rule:
    return Rule(name, ErrorClass.FIXABLE, name, re.compile(pattern, re.MULTILINE), generic=True)


T, F, P = ErrorClass.TRANSIENT, ErrorClass.FIXABLE, ErrorClass.PERMANENT
RULES: tuple[Rule, ...] = (
    _rule("timeout", T, r"^\[fixbot\] timed out after"),
    _rule(
        "command_not_found",
        P,
        rf"{SHELL}\S+: (?:command )?not found|: command not found\b"
        rf"|{SHELL}\S+: No such file or directory|npm (?:ERR!|error) Missing script"
        r"|error: no such (?:sub)?command",
        127,
    ),
    _rule(
        "auth",
        P,
        rf"\b401 Unauthorized|{HTTP}401\b|\b401 Client Error|Bad credentials"
        r"|[Aa]uthentication (?:failed|required)|[Ii]nvalid (?:API|api)[ _-]?key"
        r"|Incorrect API key|Permission denied \(publickey|npm (?:ERR!|error) code E401",
    ),
    _rule(
        "permission",
        P,
        rf"{SHELL}\S+: Permission denied|\bEACCES\b|\b403 Forbidden|{HTTP}403\b"
        r"|Resource not accessible by integration|npm (?:ERR!|error) code E403",
        126,
    ),
    _rule(
        "disk_full",
        P,
        r"No space left on device|\bENOSPC\b|\[Errno 28\]|[Dd]isk quota exceeded|\bEDQUOT\b",
    ),
    _rule(
        "out_of_memory",
        P,
        rf"{SHELL}\s*(?:\d+\s+)?Killed\b|^Killed\b|[Oo]ut of memory|oom-kill|OOMKilled"
        r"|Cannot allocate memory|\bENOMEM\b|JavaScript heap out of memory"
        r"|memory allocation of \d+ bytes failed",
        137,
    ),
    _rule(
        "syntax",
        F,
        r"\b(?:SyntaxError|IndentationError|TabError)\b|[Ss]yntax error|Unexpected token"
        r"|unexpected EOF|\bParseError\b",
    ),
    _rule(
        "import",
        F,
        r"\b(?:ModuleNotFoundError|ImportError)\b|Cannot find module|cannot find package"
        r"|no required module provides package|unresolved import|Can't resolve '",
    ),
    _rule(
        "name",
        F,
        r"\b(?:NameError|UnboundLocalError)\b|ReferenceError: \S+ is not defined|Undefined name",
    ),
    _rule(
        "type",
        F,
        r"\bTypeError\b|\.pyi?:\d+(?::\d+)?: error:|\berror TS\d+|\.tsx?:\d+:\d+ - error\b",
    ),
    _rule(
        "assertion",
        F,
        r"\bAssertionError\b|^E\s+assert\b| - assert\b|^\s*assertion\b|assertion failed"
        r"|expect\(received\)|Expected values to be strictly equal|^\s*Error:\s+Not equal:",
    ),
    _rule(
        "compile",
        F,
        r"\.(?:c|cc|cpp|cxx|h|hpp|m|mm|java|kt|swift|zig|rs):\d+(?::\d+)?:? (?:fatal )?error\b"
        r"|^error\[E\d+\]:|error: could not compile|^\S+\.go:\d+:\d+: |\d+ errors? generated\."
        r"|[Cc]ompilation (?:failed|terminated)",
    ),
    _rule(
        "lint",
        F,
        r"^\S+:\d+:\d+: [A-Z]{1,4}\d{1,4}\b|^[A-Z]{1,4}\d{2,4}(?: \[\*\])? \S"
        r"|^\s+\d+:\d+\s+error\s|\u2716 \d+ problems?|[Ww]ould reformat",
    ),
    _rule(
        "rate_limit",
        T,
        rf"Too Many Requests|[Rr]ate[ -]?limit|RateLimitError|{HTTP}429\b|\b429 Client Error",
    ),
    _rule(
        "server_error",
        T,
        r"\b50[234] (?:Bad Gateway|Service Unavailable|Gateway Time-?out|Server Error)"
        rf"|Bad Gateway|Service (?:Temporarily )?Unavailable|Gateway Time-?out|{HTTP}50[234]\b",
    ),
    _rule(
        "network",
        T,
        r"[Cc]onnection (?:refused|reset|timed out)|Connection(?:Refused|Reset)Error"
        r"|Name or service not known|Temporary failure in name resolution|getaddrinfo"
        r"|\bE(?:CONNREFUSED|CONNRESET|TIMEDOUT|NOTFOUND|AI_AGAIN)\b|Network is unreachable"
        r"|Could not resolve host|i/o timeout|TLS handshake timeout|Read timed out"
        r"|RemoteDisconnected|Failed to establish a new connection"
        r"|requests\.exceptions\.ConnectionError",
    ),
    _generic(
        "exception",
        r"^\s*(?:E\s+)?[\w.]*(?:Error|Exception)\b(?::|$)|^\s*panic: |panicked at",
    ),
    _generic(
        "test_failure",
        r"^(?:FAILED|FAIL)\b|--- FAIL|^\s*\u25cf |test result: FAILED|\b\d+ failed\b"
        r"|^not ok \d+|^Tests:.*failed",
    ),
    _generic("unknown", r""),
)
BY_NAME = {rule.name: rule for rule in RULES}


def _result(rule: Rule) -> Classification:
    return Classification(error_class=rule.error_class, category=rule.category, rule=rule.name)


def _first_match(text: str, rules: tuple[Rule, ...]) -> Rule | None:
    """The first of `rules` (in precedence order) whose pattern occurs in `text`."""
    return next((rule for rule in rules if text and rule.pattern.search(text)), None)


SPECIFIC = tuple(rule for rule in RULES if not rule.generic)
SPECIFIC_FIXABLE = tuple(rule for rule in SPECIFIC if rule.error_class is ErrorClass.FIXABLE)
GENERIC = tuple(rule for rule in RULES if rule.generic and rule.name != "unknown")


def classify(condensed: str, *, exit_code: int | None, timed_out: bool) -> Classification:
    """Classify a condensed failure log (see the module doc for the steps and precedence)."""
    if timed_out:
        return _result(BY_NAME["timeout"])
    by_code = next((r for r in RULES if exit_code in r.exit_codes), None)
    if by_code is not None:
        return _result(by_code)
    text = ANSI_RE.sub("", condensed)
    errors = "\n".join(error_lines(text))
    steps = ((errors, SPECIFIC), (text, SPECIFIC_FIXABLE), (errors, GENERIC), (text, RULES[:-1]))
    rule = next(filter(None, (_first_match(scope, rules) for scope, rules in steps)), None)
    return _result(rule or BY_NAME["unknown"])
