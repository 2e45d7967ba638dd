"""Classify a failure as transient, fixable or permanent, by a table of rules.

`RULES` is ordered; the order is the precedence. `classify` decides in four steps, first hit wins:

1. `timed_out` -> the `timeout` rule (transient: re-run after backoff).
2. The shell's exit code, for the rules that list one: 127 command not found, 126 not
   executable (permission), 137 killed by SIGKILL (out of memory: the kernel's OOM killer is
   the usual sender on CI; a timeout is step 1).
3. The evidence of the failing step (`failing_step`: a step whose summary says nothing
   failed, such as eslint's warnings before tape's failures, is left out), strongest first;
   within each step the rules in table order:
   0. a loader's own verdict that a package is missing (`Rule.stated`), anywhere in the text
      (rustc prints it under the `^^^` of its `unresolved import` error);
   a. specific rules against the error lines (`fixbot.logs.condense.error_lines`: `E ...`,
      `FAILED ...`, exception lines, compiler errors, ...), where the failure states itself:
      a test failing on `AssertionError` is fixable even when its captured log says
      "connection refused", and a test whose own error is `ConnectionRefusedError` is transient;
   b. specific fixable rules against the whole text without the source code tracebacks quote
      (jest prints `expect(received)` under its `●` line; node's TAP puts `AssertionError` in
      a YAML block; a `# TypeError ...` comment in a pytest listing is not the error);
   c. generic rules (an uncaught exception, failing tests) against the error lines, so a
      `KeyError` test failure is not taken for a network hiccup its captured log mentions;
   d. every rule against the whole text (e.g. pip's "Temporary failure in name resolution"
      in a warning line);
   then the catch-all `unknown` (fixable).

Table order: environment problems no code change can fix (permanent:
command not found, authentication, permission, disk full, out of memory, a missing
dependency) before specific code
errors (fixable: syntax, import, name, type, assertion, compile, lint) before infrastructure
hiccups (transient: rate limit, server error, network) before generic failures (fixable:
an uncaught exception, failing tests) before `unknown`.

Every phrase of the design's three lists has a rule: transient (timeout, ETIMEDOUT, timed out,
connection refused, ECONNREFUSED, 503, 429, network error, socket hang up), fixable
(SyntaxError, TypeError, Cannot read property, undefined is not, ImportError,
ModuleNotFoundError, ReferenceError, is not defined, NullPointerException) and permanent
(authentication failed, 401, permission denied, 403, invalid API key, token expired, schema
violation, constraint violation); `tests/logs/test_classify.py` holds the table.

A permanent phrase that stands only inside a failing test's own report (the failure block of
any dialect in `fixbot.logs.dialects`: pytest, unittest, jest, vitest, go, cargo; or a pytest
`E` line) is overruled: the test failure wins, and the
`Classification.note` says why. So `E  assert 401 == 200` is an assertion, not an auth error.

Decisions worth knowing:
- A package the loader names as not installed and not declared is permanent
  ("missing_dependency": no edit of the code installs it): Go's `no required module provides
  package X; to add it`, rustc's `use of unresolved module or unlinked crate`, node's
  `Cannot find module 'x'` / `Cannot find package 'x'` for a bare package name (each
  ecosystem's `Missing.said`, `fixbot.ecosystems`). Python's `No module named 'x'` and Ruby's
  `cannot load such file -- x` cannot tell a missing package from a typo by their text, so they stay
  fixable ("import") here; `fixbot.logs.missing.refine` decides both with the repository at
  hand (a name the repository holds is the code's problem again, "import"), and the run asks
  the check's interpreter whether the package is installed (`fixbot.run.checkdigest`).
- A known plugin's fixture pytest did not find (`fixture 'mocker' not found`) and a program
  the tests run that is not on PATH (`spawn pandoc ENOENT`, `exec: "pandoc": executable file
  not found`, `subprocess`'s `FileNotFoundError`, `env: 'node'`) are `missing_dependency` too
  (`fixbot.logs.absent`); `refine` again asks the repository (a fixture it defines, a program
  file it holds is the code's).
- Any other missing module (`ImportError`, a relative `Cannot find module './x'`) is fixable
  ("import"): a typo or a module the code must add.
- Python's `MemoryError` raised in a test is an exception in the code (fixable, "exception");
  only the environment's out-of-memory signs (exit 137, "Killed", ENOMEM, heap exhausted) are
  permanent.
- `PermissionError` raised by the code under test is fixable; the shell failing to execute the
  command ("Permission denied", exit 126), EACCES and HTTP 403 are permanent.
- A bare HTTP status (401, 403, 429, 503) counts when it stands alone, not inside a number or a
  dotted version; a test asserting `assert 401 == 200` stays an
  assertion (fixable rules precede transient ones, and a test's own report overrules
  permanent ones).
- "permission denied" counts in any case, except Python's `[Errno 13] Permission denied` (a
  `PermissionError` raised by the code under test is fixable).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fixbot.core.failure import Classification, ErrorClass
from fixbot.ecosystems import registry
from fixbot.logs import absent, dialects
from fixbot.logs.condense import ANSI_RE, error_lines, is_summary
from fixbot.logs.dialects import parse_counts

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
    stated: bool = False  # the tool's own verdict, wherever it stands: searched first, everywhere


def _rule(name: str, error_class: ErrorClass, pattern: str, *codes: int) -> Rule:
    return Rule(name, error_class, name, re.compile(pattern, re.MULTILINE), frozenset(codes))


def _generic(name: str, pattern: str) -> Rule:
    return Rule(name, ErrorClass.FIXABLE, name, re.compile(pattern, re.MULTILINE), generic=True)


T, F, P = ErrorClass.TRANSIENT, ErrorClass.FIXABLE, ErrorClass.PERMANENT
MISSING = "missing_dependency"
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
    _rule("cd_failed", P, rf"{SHELL}cd: (?:can't cd to |\S+: No such file or directory)"),
    _rule(
        "auth",
        P,
        rf"\b401 Unauthorized|{HTTP}401\b|\b401 Client Error|Bad credentials"
        r"|[Aa]uthentication (?:failed|required)|[Ii]nvalid (?:API|api)[ _-]?key"
        r"|Incorrect API key|Permission denied \(publickey|npm (?:ERR!|error) code E401"
        r"|(?<![\w.])401(?![\w.])|\b[Tt]oken (?:has )?expired\b",
    ),
    _rule(
        "permission",
        P,
        rf"{SHELL}\S+: Permission denied|\bEACCES\b|\b403 Forbidden|{HTTP}403\b"
        r"|Resource not accessible by integration|npm (?:ERR!|error) code E403"
        r"|(?<!\] )\b[Pp]ermission denied\b|(?<![\w.])403(?![\w.])(?![^\n]*[Rr]ate[ -]?limit)",
        126,
    ),
    _rule("schema", P, r"\b[Ss]chema violation|\b[Cc]onstraint violation"),
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
    Rule(
        MISSING,
        P,
        MISSING,
        # each ecosystem's `Missing.said`, and a plugin's fixture or a program (`absent`)
        re.compile(f"{registry.missing_said()}|{absent.STATED}", re.MULTILINE),
        stated=True,  # rustc says it under the `^^^` of its `unresolved import` error
    ),
    _rule(
        "syntax",
        F,
        r"\b(?:SyntaxError|IndentationError|TabError)\b|[Ss]yntax error|Unexpected token"
        r"|unexpected EOF|\bParseError\b",
    ),
    _rule("import", F, registry.import_failed()),  # each ecosystem's `Missing.failed`
    _rule(
        "name",
        F,
        r"\b(?:NameError|UnboundLocalError|ReferenceError)\b|\bis not defined\b|Undefined name",
    ),
    _rule(
        "type",
        F,
        r"\bTypeError\b|\.pyi?:\d+(?::\d+)?: error:|\berror TS\d+|\.tsx?:\d+:\d+ - error\b"
        r"|Cannot read propert(?:y|ies)\b|\bundefined is not\b|\bNullPointerException\b",
    ),
    _rule(
        "assertion",
        F,
        r"\bAssertionError\b|^E\s+assert\b| - assert\b|^\s*assertion\b|assertion failed"
        r"|expect\(received\)|Expected values to be strictly equal|^\s*Error:\s+Not equal:"
        r"|^\s+operator: \w+[ \t]*\n\s+expected:",  # tape's diagnostics under `not ok`
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
        rf"Too Many Requests|[Rr]ate[ -]?limit|RateLimitError|{HTTP}429\b|\b429 Client Error"
        r"|(?<![\w.])429(?![\w.])",
    ),
    _rule(
        "server_error",
        T,
        r"\b50[234] (?:Bad Gateway|Service Unavailable|Gateway Time-?out|Server Error)"
        rf"|Bad Gateway|Service (?:Temporarily )?Unavailable|Gateway Time-?out|{HTTP}50[234]\b"
        r"|(?<![\w.])503(?![\w.])",
    ),
    _rule(
        "network",
        T,
        r"[Cc]onnection (?:refused|reset|timed out)|Connection(?:Refused|Reset)Error"
        r"|Name or service not known|Temporary failure in name resolution|getaddrinfo"
        r"|\bE(?:CONNREFUSED|CONNRESET|TIMEDOUT|NOTFOUND|AI_AGAIN)\b|Network is unreachable"
        r"|Could not resolve host|i/o timeout|TLS handshake timeout|Read timed out"
        r"|RemoteDisconnected|Failed to establish a new connection"
        r"|requests\.exceptions\.ConnectionError|[Nn]etwork error|[Ss]ocket hang up",
    ),
    Rule(
        "timed_out",
        ErrorClass.TRANSIENT,
        "timeout",
        re.compile(r"\b[Tt]imed out\b|\b[Tt]ime-?out\b|\bTIMEOUT\b", re.MULTILINE),
    ),
    _generic(
        "exception",
        r"^\s*(?:E\s+)?[\w.]*(?:Error|Exception)\b(?::|$)|^\s*panic: |panicked at",
    ),
    _generic("test_failure", "|".join(dict.fromkeys(dialects.FAILING_SOURCES))),
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


HEADS, HEAD_TAGS = dialects.tagged(
    "head", lambda d: d.heads if d.armed_by is None else ()
)  # every dialect's failure headers but those that need the whole log (mocha's)
REPORT_HEAD_RE = re.compile(rf"^[ \t]*(?:{HEADS})", re.MULTILINE)
REPORT_END_RE = re.compile(
    rf"^[ \t]*(?:{dialects.tagged('end', lambda d: d.ends)[0]})", re.MULTILINE
)
PYTEST_E_RE = re.compile(r"E\s")


def _report_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, test name) of each failing test's own report in `text`: from a failure
    header of any dialect (`fixbot.logs.dialects`: pytest `____ test ____`, jest `●`, unittest
    `FAIL:`, go `--- FAIL:`, ...) to the next one or to one of the dialects' section ends
    (`=====`, `Test Suites:`, `Ran N tests`, ...)."""
    heads = list(REPORT_HEAD_RE.finditer(text))
    spans = []
    for index, head in enumerate(heads):
        limit = heads[index + 1].start() if index + 1 < len(heads) else len(text)
        end = REPORT_END_RE.search(text, head.end(), limit)
        name = head.lastgroup or ""
        tag = HEAD_TAGS[name]
        test = tag.dialect.test_id(tag.groups(head, name))
        spans.append((head.start(), end.start() if end else limit, test.strip()))
    return spans


def _only_in_reports(text: str, rule: Rule) -> tuple[str, str] | None:
    """(phrase, test) when every match of `rule` in `text` stands inside a failing test's own
    report (or on a pytest `E` line); None when one stands outside."""
    spans = _report_spans(text)
    found: tuple[str, str] | None = None
    for match in rule.pattern.finditer(text):
        if not match.group():
            continue
        line_start = text.rfind("\n", 0, match.start()) + 1
        span = next((s for s in spans if s[0] <= match.start() < s[1]), None)
        if span is None and not PYTEST_E_RE.match(text, line_start):
            return None
        found = found or (match.group(), span[2] if span else "a failing test")
    return found


PY_SOURCE_RE = re.compile(r'^\s*File "[^"\n]+", line \d+.*\n((?:[ \t]+.*\n?)*)', re.MULTILINE)
QUOTED_RE = re.compile(r"^(?:>|    ).*$", re.MULTILINE)  # pytest's listing: `>` and indented


def without_source(text: str) -> str:
    """`text` without the source code a traceback quotes: the indented lines under Python's
    `File "x.py", line N` and the listing inside a pytest failure report (lines starting with
    `>` or four spaces). A comment there that says "TypeError" is not the error."""
    text = PY_SOURCE_RE.sub(lambda m: m.group().split("\n", 1)[0] + "\n", text)
    pieces, at = [], 0
    for start, end, _ in _report_spans(text):
        if REPORT_HEAD_RE.match(text, start) and text[start] == "_":  # a pytest report
            pieces += [text[at:start], QUOTED_RE.sub("", text[start:end])]
            at = end
    return "".join([*pieces, text[at:]])


def _decide(text: str, rules: tuple[Rule, ...]) -> Rule | None:
    """The first rule of `rules` that matches, by the steps of the module doc."""
    errors = "\n".join(error_lines(text))
    specific = tuple(r for r in SPECIFIC if r in rules)
    steps = (
        (text, tuple(r for r in specific if r.stated)),
        (errors, specific),
        (without_source(text), tuple(r for r in specific if r.error_class is ErrorClass.FIXABLE)),
        (errors, GENERIC),
        (text, tuple(r for r in RULES[:-1] if r in rules)),
    )
    return next(filter(None, (_first_match(scope, rs) for scope, rs in steps)), None)


def failing_step(text: str, rules: tuple[Rule, ...] = RULES) -> str:
    """The failing step's own lines: those after the last summary line that reports nothing
    failed (`npm test` running eslint, whose `✖ 3 problems (0 errors, 3 warnings)` passed,
    then tape, whose assertions failed), when a rule matches them; else all of `text`. A step
    that passed is not the failure, however its warnings read."""
    lines = text.splitlines(keepends=True)
    clean = [
        n for n, line in enumerate(lines) if is_summary(line) and parse_counts(line).problems == 0
    ]
    if not clean or clean[-1] == len(lines) - 1:
        return text
    tail = "".join(lines[clean[-1] + 1 :])
    return tail if _decide(tail, rules) is not None else text


def classify(
    condensed: str, *, exit_code: int | None, timed_out: bool, without: frozenset[str] = frozenset()
) -> Classification:
    """Classify a condensed failure log (see the module doc for the steps and precedence);
    the rules named in `without` are left out (a missing dependency the repository holds).

    A permanent rule whose every match stands inside a failing test's own report (a failure
    block of a dialect's, see `_report_spans`, or a pytest `E` line) is overruled: the test
    failure wins (fixable), and the `note` says which phrase was found where.
    """
    if timed_out:
        return _result(BY_NAME["timeout"])
    by_code = next((r for r in RULES if exit_code in r.exit_codes), None)
    if by_code is not None:
        return _result(by_code)
    rules = tuple(r for r in RULES if r.name not in without)
    text = failing_step(ANSI_RE.sub("", condensed), rules)
    rule = _decide(text, rules)
    if rule is None:
        return _result(BY_NAME["unknown"])
    overruled = _overruled(text, rule)
    return _result(rule) if overruled is None else overruled


def _overruled(text: str, rule: Rule) -> Classification | None:
    """The test failure's classification when the permanent `rule` matched only inside failing
    tests' reports; None when `rule` stands."""
    # a loader's "no such package" stands in the failing test's report (node's TAP quotes it
    # under `not ok`), and is still the environment's problem
    if rule.error_class is not ErrorClass.PERMANENT or rule.name == MISSING:
        return None
    inside = _only_in_reports(text, rule)
    return None if inside is None else _test_failure_wins(text, rule, *inside)


def _test_failure_wins(text: str, permanent: Rule, phrase: str, test: str) -> Classification:
    """The fixable decision for `text` without permanent rules, with a note on why."""
    rest = tuple(r for r in RULES if r.error_class is not ErrorClass.PERMANENT)
    rule = _decide(text, rest)
    if rule is None or rule.error_class is not ErrorClass.FIXABLE:
        rule = BY_NAME["test_failure"]
    note = (
        f"{permanent.name} phrase {phrase!r} stands inside the failure report of {test}: "
        "the test failure wins"
    )
    return Classification(
        error_class=rule.error_class, category=rule.category, rule=rule.name, note=note
    )
