"""Property tests (hypothesis) for failure signatures (`fixbot.logs.signature`): the signature
ignores
the noise of re-runs the module doc lists (ANSI codes, timestamps, durations, hex addresses,
temporary paths, PIDs, UUIDs, the checkout path, line numbers) and changes with the failing tests;
`normalize` is idempotent; counts and test ids are parsed from any text without an error."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from fixbot.logs.condense import ANSI_RE
from fixbot.logs.dialects.unittest import HEAD as UNITTEST_HEAD
from fixbot.logs.signature import (
    failing_tests,
    failure_signature,
    normalize,
    parse_counts,
    timeout_signature,
    without_line_numbers,
)

FAST = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
)

ident = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
seg = st.from_regex(r"[A-Za-z0-9_]{1,10}", fullmatch=True)


@st.composite
def noise(draw: st.DrawFn) -> dict[str, str]:
    """One re-run's noise: the values that change between identical runs."""
    hex_digits = draw(st.from_regex(r"[0-9a-f]{4,12}", fullmatch=True))
    stamp = draw(
        st.sampled_from(
            (
                "{d} {t},{ms}",
                "{d}T{t}.{ms}Z",
                "{d}T{t}+02:00",
                "{t}",
                "{t}.{ms}",
            )
        )
    ).format(
        d=draw(st.dates()).isoformat(),
        t=draw(st.times()).isoformat(timespec="seconds"),
        ms=draw(st.integers(0, 999_999)),
    )
    tmp = draw(
        st.sampled_from(
            (
                "/tmp/{a}",
                "/tmp/pytest-of-{a}/pytest-{n}/{b}0",
                "/private/var/folders/{a}/{b}/T/{a}",
                "/var/folders/{a}/{b}/T",
            )
        )
    ).format(a=draw(seg), b=draw(seg), n=draw(st.integers(0, 9999)))
    duration = draw(
        st.sampled_from(("{n}ms", "{n}.{m}s", "{n} seconds", "{n}us", "{n}.{m}s ({n}:12:34)"))
    ).format(n=draw(st.integers(0, 99_999)), m=draw(st.integers(0, 99)))
    ansi = draw(st.sampled_from(("", "\x1b[31m", "\x1b[1m\x1b[31m", "\x1b[1;31m")))
    return {
        "hex": "0x" + hex_digits,
        "stamp": stamp,
        "tmp": tmp,
        "pid": str(draw(st.integers(0, 4_000_000))),
        "uuid": str(draw(st.uuids())),
        "duration": duration,
        "seconds": f"{draw(st.integers(0, 9999))}.{draw(st.integers(0, 99)):02d}s"
        + draw(st.sampled_from(("", " (0:13:32)", " (12:01:02)"))),
        "line": str(draw(st.integers(1, 99_999))),
        "col": str(draw(st.integers(1, 999))),
        "ansi": ansi,
        "reset": "\x1b[0m" if ansi else "",
        "repo": "/{}/{}/{}".format(*draw(st.lists(seg, min_size=3, max_size=3))),
    }


Failure = tuple[str, str, int, int]  # test module, test name, and the assertion's two values
failure = st.tuples(ident, ident.map("test_{}".format), st.integers(0, 999), st.integers(0, 999))
failures = st.lists(failure, min_size=1, max_size=4, unique_by=lambda f: (f[0], f[1]))


def pytest_log(failing: list[Failure], n: dict[str, str]) -> str:
    """A pytest log of `failing` with the noise `n` in its error lines, frames and captured logs."""
    lines = ["=" * 30 + " FAILURES " + "=" * 30]
    for module, name, a, b in failing:
        where = f"{n['repo']}/tests/test_{module}.py:{n['line']}"
        lines += [
            f"{n['ansi']}____________ {name} ____________{n['reset']}",
            f"    def {name}(tmp_path):",
            f">       assert total(load({n['tmp']}/data.json)) == {b}",
            f"{n['ansi']}E       assert {a} == {b}{n['reset']}",
            f"E        +  where {a} = <Box object at {n['hex']}> (id {n['uuid']})",
            f"E   ValueError: {n['stamp']} worker pid {n['pid']} read {n['tmp']}/x.json in"
            f" {n['duration']}",
            f"{where}: AssertionError",
            f"{n['repo']}/app/core.py:{n['line']}:{n['col']}: error: Name {name!r} is not defined",
            f'  File "{n["repo"]}/app/core.py", line {n["line"]}, in {name}',
            f"INFO {n['stamp']} loaded {n['tmp']} in {n['duration']} (pid={n['pid']})",
        ]
    lines += [f"FAILED tests/test_{m}.py::{name} - assert {a} == {b}" for m, name, a, b in failing]
    lines.append(f"=== {len(failing)} failed, 3 passed in {n['seconds']} ===")
    return "\n".join(lines) + "\n"


@settings(FAST, max_examples=100)
@given(failures, noise(), noise())
def test_the_signature_ignores_the_noise_of_reruns(
    failing: list[Failure], first: dict[str, str], second: dict[str, str]
) -> None:
    one, two = pytest_log(failing, first), pytest_log(failing, second)
    repo_one, repo_two = Path(first["repo"]), Path(second["repo"])
    assert failure_signature(one, repo=repo_one) == failure_signature(two, repo=repo_two)
    tests = failing_tests(one)
    assert tests == failing_tests(two) == sorted(f"tests/test_{m}.py::{t}" for m, t, *_ in failing)
    signed = failure_signature(one, repo=repo_one, tests=tests)
    assert signed == failure_signature(two, repo=repo_two, tests=tests[::-1])  # order is noise
    assert timeout_signature(one, repo=repo_one) == timeout_signature(two, repo=repo_two)


@settings(FAST, max_examples=100)
@given(failures, noise(), ident.map("test_{}".format), st.data())
def test_the_signature_changes_with_a_failing_tests_name(
    failing: list[Failure], n: dict[str, str], renamed: str, data: st.DataObject
) -> None:
    which = data.draw(st.integers(0, len(failing) - 1))
    module, _, a, b = failing[which]
    if (module, renamed) in {(m, t) for m, t, *_ in failing}:
        return  # the new name is taken: no change
    changed = [*failing[:which], (module, renamed, a, b), *failing[which + 1 :]]
    repo = Path(n["repo"])
    assert failure_signature(pytest_log(changed, n), repo=repo) != failure_signature(
        pytest_log(failing, n), repo=repo
    )


@settings(FAST, max_examples=60)
@given(failures, noise())
def test_the_checkout_path_matters_only_when_it_is_not_given(
    failing: list[Failure], n: dict[str, str]
) -> None:
    log = pytest_log(failing, n)
    moved = log.replace(n["repo"], "/elsewhere/checkout")
    assert failure_signature(log, repo=Path(n["repo"])) == failure_signature(
        moved, repo=Path("/elsewhere/checkout")
    )
    assert failure_signature(log) != failure_signature(moved)


# Text with the noise, near-noise and summary lines of many tools in it.
PIECES = (
    "\x1b[31m",
    "\x1b[0m",
    "\x1b",
    "[",
    "31m",
    "0x",
    "0xdeadbeef",
    "12:00:03",
    "2024-05-01 ",
    "/tmp/",
    "pytest-of-",
    "/pytest-",
    "pid ",
    "pid=",
    "thread 'a' (",
    ")",
    "ms",
    "s",
    " seconds",
    ".py:",
    "line ",
    ":",
    "(",
    ",",
    "\n",
    "\r\n",
    " ",
    "=== ",
    " failed, ",
    " passed in ",
    "Ran ",
    " tests in 0.1s\n",
    "FAILED (failures=",
    "errors=",
    "OK (skipped=",
    "Tests: ",
    " total",
    "--- FAIL: ",
    "test result: ok. ",
    " passed; ",
    " failed; ",
    " ignored",
    "Found ",
    " errors",
    "# pass ",
    "# fail ",
    " passing",
    " failing",
    "\u2716 ",
    " problems (",
    "FAILED ",
    "::",
    "FAIL: ",
    "ERROR: ",
    "\u25cf ",
    "not ok ",
    " - ",
    "test ",
    " ... FAILED",
)
text = st.lists(
    st.one_of(st.sampled_from(PIECES), st.integers(0, 10**6).map(str), st.text(max_size=8)),
    max_size=60,
).map("".join)


@settings(FAST, max_examples=400)
@given(text)
@example("\x1b\x1b[0m[31m")  # removing one code must not leave another
@example("\n\n")  # trailing blank lines
@example("0\r\nms")  # a duration across a line break
@example("pid 0pid 0")  # the first replacement must not let the second `pid` match
@example("line 0line 0")  # nor a line number's `<n>` open a boundary before `line`
def test_normalize_is_idempotent(sample: str) -> None:
    once = normalize(sample)
    assert normalize(once) == once
    assert "\x1b[" not in once or ANSI_RE.search(once) is None
    stripped = without_line_numbers(once)
    assert without_line_numbers(stripped) == stripped


@settings(FAST, max_examples=100)
@given(
    st.integers(0, 10**5),
    st.sampled_from(("s", "ms", " seconds", "us", "\u00b5s")),
    st.sampled_from(("", " (0:13:32)", " (10:13:32)", " (123:00:01)")),
)
def test_every_duration_is_noise(value: int, unit: str, clock: str) -> None:
    assert normalize(f"took {value}{unit}{clock}, then {value / 7:.2f}s") == (
        "took <duration>, then <duration>"
    )


@settings(FAST, max_examples=100)
@given(st.from_regex(r"[a-z_/]{1,12}\.(py|rs|ts|c)", fullmatch=True), st.integers(0, 10**6))
def test_line_numbers_are_left_out_whatever_they_are(path: str, line: int) -> None:
    for sample in (f"{path}:{line}: error", f"{path}:{line}:{line % 80}: x", f"x, line {line}"):
        assert without_line_numbers(sample) == without_line_numbers(sample.replace(str(line), "7"))


@settings(FAST, max_examples=400)
@given(text)
@example("Ran 1 test in 0.1s\nFAILED (failures=5)\n")  # more failures than tests ran
def test_parse_counts_never_raises_and_counts_are_not_negative(sample: str) -> None:
    counts = parse_counts(sample)
    assert all(value is None or value >= 0 for value in counts.model_dump().values())
    assert parse_counts(sample) == counts


@settings(FAST, max_examples=400)
@given(text)
def test_failing_tests_are_sorted_unique_and_named_in_the_text(sample: str) -> None:
    names = failing_tests(sample)
    assert names == sorted(set(names))
    plain = ANSI_RE.sub("", sample)
    unittest_ids = {
        where if where.endswith(f".{method}") else f"{where}.{method}"
        for method, where in re.findall(rf"^[ \t]*{UNITTEST_HEAD}", plain, re.MULTILINE)
    }
    for name in names:
        assert name in plain or name in unittest_ids
        assert name and "\n" not in name
