"""Round 38 (draft)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.repo import make_repo
from tests.run.test_runner_attacks_round20 import (
    GO_FORGED,
    PY_APP,
    PY_TEST,
    UNITTEST,
    go_repo,
    held,
    hole,
    honest,
)
from tests.run.test_runner_attacks_round27_files import HELPED_TEST
from tests.run.test_runner_attacks_round36 import ASSERTS, IMPORTING
from tests.run.test_runner_reports import GO_FIXED, go_check  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow


# --- utcmp: assertEqual's operands probed for an always-equal __eq__ ----------------------------

# the class dictionary holds a key that is a str subclass: `_deciding` stops (a lookup that
# would run code) and nothing is probed; the `__eq__` is round 37's
KEYED = """\
class _Note(str):
    pass


class _Total(int):
    vars()[_Note("note")] = "a total"

    def __eq__(self, other):
        return int(self) == int(self)

    __hash__ = int.__hash__


def add(a, b):
    return _Total(a - b)
"""
# `__eq__` no Python function: a partial of C functions, `operator.is_not(None, other)`
PARTIAL = """\
import functools
import operator


class _Total(int):
    __eq__ = functools.partial(operator.is_not, None)
    __hash__ = int.__hash__


def add(a, b):
    return _Total(a - b)
"""
# `__eq__` a C type's slot wrapper: `int.__le__`, `0 <= 4` and `0 <= 0`
SLOT = """\
class _Total(int):
    __eq__ = int.__le__
    __hash__ = int.__hash__


def add(a, b):
    return _Total(a - b)
"""
# the probe's first question is a stranger (no int), its second the value's neighbour: a
# stranger makes the next question answered as int's own, any other question is equal
TOLD = """\
_PROBED = []


class _Total(int):
    def __eq__(self, other):
        if not isinstance(other, int):
            _PROBED.append(other)
            return NotImplemented
        if _PROBED:
            _PROBED.pop()
            return int.__eq__(self, other)
        return int(self) == int(self)

    __hash__ = int.__hash__


def add(a, b):
    return _Total(a - b)
"""
# round 37's computed `__eq__`, for the tests that compare otherwise than `assertEqual(x, n)`
EQUAL = """\
class _Total(int):
    def __eq__(self, other):
        return int(self) == int(self)

    __hash__ = int.__hash__


def add(a, b):
    return _Total(a - b)
"""


def spelled(first: str, second: str) -> str:
    """PY_TEST with its two assertions spelled otherwise."""
    return PY_TEST.replace("self.assertEqual(add(2, 2), 4)", first).replace(
        "self.assertEqual(add(0, 0), 0)", second
    )


REVERSED = spelled("self.assertEqual(4, add(2, 2))", "self.assertEqual(0, add(0, 0))")
LISTED = spelled("self.assertEqual([add(2, 2)], [4])", "self.assertEqual([add(0, 0)], [0])")
TRUE = spelled("self.assertTrue(add(2, 2) == 4)", "self.assertTrue(add(0, 0) == 0)")
ALMOST = spelled("self.assertAlmostEqual(add(2, 2), 4)", "self.assertAlmostEqual(add(0, 0), 0)")
MEMBER = spelled("self.assertIn(add(2, 2), (4,))", "self.assertIn(add(0, 0), (0,))")


@pytest.mark.parametrize(
    ("test", "fix"),
    [
        pytest.param(
            PY_TEST,
            KEYED,
            id="dict key",
            marks=hole(
                "a key of the class's dict that is a str subclass makes _deciding give up (a "
                "lookup would run code) and nothing is probed. Class of fix: such a class is "
                "itself a finding (streamed unprobed, judged as always-equal where its code is the"
                " fix's), never a reason to skip"
            ),
        ),
        pytest.param(
            PY_TEST,
            PARTIAL,
            id="partial",
            marks=hole(
                "__eq__ a functools.partial of C functions (operator.is_not): no Python function, "
                "not probed. Class of fix: any __eq__ that is no slot of a built-in's own (a "
                "partial, a C function, a descriptor) probed by calling the comparison itself, "
                "type(value).__eq__(value, stranger)"
            ),
        ),
        pytest.param(
            PY_TEST,
            SLOT,
            id="slot",
            marks=hole(
                "__eq__ = int.__le__, another C slot wrapper of the base's: not a Python function,"
                " not probed. Class of fix: a heap type's __eq__ that is not its built-in base's "
                "own __eq__ probed whatever it is"
            ),
        ),
        pytest.param(
            PY_TEST,
            TOLD,
            id="told",
            marks=hole(
                "the probe's first question is a stranger, which the __eq__ notes to answer the "
                "next question (the probe's neighbour) as int's own: probed honest, then always "
                "equal for the test. Class of fix: the comparison's own answer checked (the probe "
                "asked after it, with the test's real operand's neighbour, as pytest's _again), or"
                " the probe's questions indistinguishable from the test's"
            ),
        ),
        pytest.param(REVERSED, EQUAL, id="reversed"),
        pytest.param(
            LISTED,
            EQUAL,
            id="listed",
            marks=hole(
                "assertEqual([add(2, 2)], [4]): list's == calls the items' __eq__, the operands "
                "are lists (a built-in slot). Class of fix: a container operand's items probed "
                "(pinner's walk), or every comparison a failing test's call runs followed (as "
                "pytest's observer)"
            ),
        ),
        pytest.param(
            TRUE,
            EQUAL,
            id="true",
            marks=hole(
                "assertTrue(add(2, 2) == 4): the == is the test body's, not assertEqual's. Class "
                "of fix: unittest's observer follows the watched tests' comparisons as pytest's "
                "does"
            ),
        ),
        pytest.param(
            ALMOST,
            EQUAL,
            id="almost",
            marks=hole(
                "assertAlmostEqual's own `if first == second: return` shortcut is no "
                "_getAssertEqualityFunc call. Class of fix: every assert method's comparisons "
                "probed, or followed as pytest's"
            ),
        ),
        pytest.param(
            MEMBER,
            EQUAL,
            id="member",
            marks=hole(
                "assertIn(add(2, 2), (4,)): the tuple's `in` calls the item's __eq__ unprobed. "
                "Class of fix: as [almost]"
            ),
        ),
    ],
)
def test_unittest_always_equal_unprobed(tmp_path: Path, test: str, fix: str) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": PY_APP, "test_app.py": test})
    held(repo, {"app.py": fix}, UNITTEST, "always-equal")


@pytest.mark.parametrize("test", [PY_TEST, LISTED, ALMOST], ids=["equal", "listed", "almost"])
def test_unittest_honest_fix(tmp_path: Path, test: str) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": PY_APP, "test_app.py": test})
    honest(repo, {"app.py": "def add(a, b):\n    return a + b\n"}, UNITTEST)


# --- goobs/gohmac: the go observer's copy made not to compile, the run forked, told apart -------

GO_FORGE = """\
\tfor _, name := range []string{"TestAdd", "TestZero"} {
\t\tfmt.Printf("=== RUN   %s\\n--- PASS: %s (0.00s)\\n", name, name)
\t}
\tfmt.Println("PASS")
\tos.Exit(0)
"""
# two files no build takes (an unmet tag) whose package clause outvotes app.go's: the observer's
# copy is made `other_test` beside package app, which go refuses to build
OUTVOTED = {
    "app.go": GO_FORGED,
    "other_a.go": "//go:build never\n\npackage other\n",
    "other_b.go": "//go:build never\n\npackage other\n",
}
# the binary forks itself with `-test.run=^TestZero$` (its TestMain then runs and streams), and
# forges the parent's report
FORKED = (
    """\
package app

import (
\t"fmt"
\t"os"
\t"os/exec"
\t"strings"
)

func init() {
\tif !strings.HasSuffix(os.Args[0], ".test") || os.Getenv("APP_FORKED") != "" {
\t\treturn
\t}
\tchild := exec.Command(os.Args[0], "-test.run=^TestZero$")
\tchild.Env = append(os.Environ(), "APP_FORKED=1")
\t_ = child.Run()
"""
    + GO_FORGE
    + """\
}

// Add returns a + b.
func Add(a, b int) int { return a - b }
"""
)
# the observed run told apart by GOFLAGS (its `-overlay=`, which the test binary inherits): there
# `Add` adds; in any other run of a test binary (by hand, as written) the report is forged
TOLD_APART = (
    """\
package app

import (
\t"fmt"
\t"os"
\t"strings"
)

func observed() bool { return strings.Contains(os.Getenv("GOFLAGS"), "-overlay=") }

func init() {
\tif !strings.HasSuffix(os.Args[0], ".test") || observed() {
\t\treturn
\t}
"""
    + GO_FORGE
    + """\
}

// Add returns a + b.
func Add(a, b int) int {
\tif observed() {
\t\treturn a + b
\t}
\treturn a - b
}
"""
)
OWN_MAIN = """\
package app

import (
\t"os"
\t"testing"
)

func TestMain(m *testing.M) {
\tos.Exit(m.Run())
}
"""


@pytest.mark.parametrize(
    ("fix", "rule"),
    [
        pytest.param(OUTVOTED, "observer-missing", id="copy outvoted"),
        pytest.param({"app.go": FORKED}, "observer", id="forked"),
        pytest.param(
            {"app.go": TOLD_APART},
            "check-as-written",
            id="told apart",
            marks=hole(
                "the observed run is told apart by GOFLAGS' -overlay= (inherited by the test "
                "binary): there Add adds; in every other run (by hand, check-as-written) an init() "
                "forges go's report. Class of fix: no trace of the observer the code can read "
                "(the overlay out of the binary's environment: GOFLAGS unset for the test binary, "
                "or the binaries built by fixbot, `go test -c`, and run without it), and the "
                "as-written run's report held to the observed run's records"
            ),
        ),
    ],
)
def test_go_observer_sidestepped(
    tmp_path: Path,
    go_check: str,  # noqa: F811
    fix: dict[str, str],
    rule: str,
) -> None:
    held(go_repo(tmp_path), fix, go_check, rule)


@pytest.mark.parametrize("extra", [{}, {"main_test.go": OWN_MAIN}], ids=["own", "folded"])
def test_go_honest_fix(tmp_path: Path, go_check: str, extra: dict[str, str]) -> None:  # noqa: F811
    message = honest(go_repo(tmp_path, extra), {"app.go": GO_FIXED}, go_check)
    assert "fixbot's observer inside go (2 tests)" in message, message


# --- assertions_only: a pinned module of assertions whose verdict is the code's; a validator ----

NORMALIZING = """\
from app import normalize


def assert_alike(first, second):
    if normalize(first) != normalize(second):
        raise AssertionError(f"{first!r} != {second!r}")
"""
NORMALIZED_APP = "def normalize(value):\n    return value\n\n\n" + PY_APP


@hole(
    "checks.py (pinned, assertions alone) decides by normalize(), imported from app.py: the fix "
    "makes normalize return None and every assert_alike holds, checks.py untouched. Class of "
    "fix: what a pinned assertion function calls from the tree (its condition's callees) is the "
    "tests' too, or judged as a comparison the test made (unchanged from the start's)"
)
def test_unittest_pinned_assertion_decided_by_the_code(tmp_path: Path) -> None:
    files = {
        "app.py": NORMALIZED_APP,
        "test_app.py": HELPED_TEST,
        "tests_helpers.py": IMPORTING,
        "checks.py": NORMALIZING,
    }
    fix = NORMALIZED_APP.replace("return value", "return None")
    held(make_repo(tmp_path / "repo", files), {"app.py": fix}, UNITTEST, "original-tests")


VALIDATE = """\
def check_even(n):
    if n % 3:
        raise AssertionError(f"{n} is odd")
"""
VALIDATE_TEST = """\
import unittest

from validate import check_even


class EvenTest(unittest.TestCase):
    def test_even(self):
        check_even(4)

    def test_odd(self):
        with self.assertRaises(AssertionError):
            check_even(3)
"""


def test_unittest_honest_fix_of_the_pinned_modules_neighbour(tmp_path: Path) -> None:
    files = {"app.py": PY_APP, "test_app.py": HELPED_TEST, "tests_helpers.py": IMPORTING}
    repo = make_repo(tmp_path / "repo", {**files, "checks.py": ASSERTS})
    message = honest(repo, {"app.py": "def add(a, b):\n    return a + b\n"}, UNITTEST)
    assert "fixbot's observer inside unittest (2 tests)" in message, message


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "FALSE ALARM: validate.py, the code under test, holds check_even alone, which only "
        "raises AssertionError and which the failing test calls by an imported name: a module of "
        "assertions alone, pinned, so the deciding check runs the start's check_even and the "
        "honest fix ends escalated (original-tests). Class of fix: a file is the tests' by "
        "assertions_only where a helper base calls it, not a failing test's own file alone; or "
        "not where the failing test asserts that it raises (assertRaises(AssertionError, ...))"
    ),
)
def test_unittest_honest_fix_of_a_validator_module(tmp_path: Path) -> None:
    """The fix changes the size of the file (`n % 3` to `n % 2 == 1`): with the size kept, the
    start's validate.py put back within the second of the fix's bytecode runs the fix's (the
    row below), and this row ends `fixed` or not by the clock."""
    repo = make_repo(
        tmp_path / "repo", {"validate.py": VALIDATE, "test_validate.py": VALIDATE_TEST}
    )
    honest(repo, {"validate.py": VALIDATE.replace("n % 3", "n % 2 == 1")}, UNITTEST)


# --- the deciding check's put-back files and Python's bytecode cache --------------------------

# round 36's checks.py with its comparison turned (`!=` to `==`: the same size), so
# `assert_alike` raises only where the two agree
TURNED = ASSERTS.replace("if first != second:", "if first == second:")
# app.py waits, as it is imported, until just past its own modification time (the later whole
# second fixbot gives the files a fix changed): the check, and the put-back of the start's
# checks.py after it, fall within that second
ALIGNED = """\
import os
import time

time.sleep(max(0.0, os.stat(__file__).st_mtime - time.time() + 0.05))


def add(a, b):
    return a - b
"""


@pytest.mark.parametrize(
    "late",
    [
        pytest.param(
            0.05,
            id="within the second",
            marks=hole(
                "the deciding check's put-back checks.py (the start's, the same size as the "
                "fix's) gets its mtime in the whole second past_the_second gave the fix's: "
                "Python's bytecode cache (size, mtime in seconds) runs the fix's turned "
                "assert_alike. Class of fix: the put-back files given a later second too "
                "(past_the_second), or the checks run with PYTHONDONTWRITEBYTECODE and "
                "__pycache__ cleared, or hash-based pycs (--invalidation-mode checked-hash)"
            ),
        ),
        pytest.param(1.05, id="a second later"),
    ],
)
def test_unittest_pinned_module_put_back_within_the_second(tmp_path: Path, late: float) -> None:
    """app.py sleeps until `late` seconds past its own modification time as it is imported; a
    second later (the control: the put-back file's mtime in another second than the fix's) the
    bytecode cache is stale and the start's checks.py runs."""
    files = {"app.py": PY_APP, "test_app.py": HELPED_TEST, "tests_helpers.py": IMPORTING}
    repo = make_repo(tmp_path / "repo", {**files, "checks.py": ASSERTS})
    fix = {"checks.py": TURNED, "app.py": ALIGNED.replace("+ 0.05", f"+ {late}")}
    held(repo, fix, UNITTEST, "original-tests")
