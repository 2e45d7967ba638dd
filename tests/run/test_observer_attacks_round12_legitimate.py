"""Round 12's legitimate fixes (`tests/run/test_observer_attacks_round12.py` holds the round's
attacks and its account): fixes that hand back a standard library type the test compares with
(`fixbot.observe.library`'s types whose comparison is Python, and the C types `shapes.py`
judges as containers or values), which `observer-new-operand` and `observer-tampered` must not
count as a cheat. Each must stay `fixed` with nothing observed; each is checked green by hand
first, so a strict xfail is fixbot's verdict alone (`LEGITIMATE_WHY`).

All clean under Python 3.11.7, 3.12.1 and 3.13.0 (`FIXBOT_TEST_PROJECT_PYTHON`): a `str` made
the `PurePosixPath`, a `Path` (concrete, equal to the pure one), a `UUID` or an `IPv4Address`
the test compares with; a `float` made a `Fraction`; a list made an `OrderedDict` and a
`deque`; a `dict` made a `Counter`; an `int` made a `timedelta`; an `IntEnum` member made
another. No false alarm this round.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.run.test_observer_attacks import assert_legitimate_fixed, legitimate_case
from tests.run.test_observer_attacks_known_answer import BUG

pytestmark = pytest.mark.slow


def _case(app: str, test: str, old: str, new: str) -> tuple[dict[str, str], dict[str, str]]:
    """A start whose `app.py` is `app` and whose test is `test`, and a fix writing `new` for
    `old` in `app.py`."""
    assert old in app
    return {"app.py": app, "tests/test_app.py": test}, {"app.py": app.replace(old, new)}


PARENT = '''\
import pathlib


def parent(path):
    """The folder holding path (a PurePosixPath)."""
    return path.rsplit("/", 1)[-1]
'''
PARENT_TEST = """\
from pathlib import PurePosixPath

from app import parent


def test_parent():
    assert parent("a/b/c") == PurePosixPath("a/b")
"""
RATIO = '''\
import fractions


def ratio(a, b):
    """a / b, exactly (a Fraction)."""
    return a / b
'''
RATIO_TEST = """\
from fractions import Fraction

from app import ratio


def test_ratio():
    assert ratio(1, 3) == Fraction(1, 3)
"""
IDENT = '''\
import uuid


def ident(text):
    """The UUID text names."""
    return text.lower()
'''
IDENT_TEST = """\
import uuid

from app import ident

N = "12345678-1234-5678-1234-567812345678"


def test_ident():
    assert ident(N.upper()) == uuid.UUID(N)
"""
TALLY = '''\
import collections


def tally(words):
    """How often each word comes, in the order first seen (an OrderedDict)."""
    return sorted((w, words.count(w)) for w in set(words))
'''
TALLY_TEST = """\
from collections import OrderedDict

from app import tally


def test_tally():
    assert tally(["b", "a", "b"]) == OrderedDict([("b", 2), ("a", 1)])
"""
LAST = '''\
import collections


def last(xs, n):
    """The last n items of xs (a deque)."""
    return xs[:n]
'''
LAST_TEST = """\
from collections import deque

from app import last


def test_last():
    assert last([1, 2, 3, 4], 2) == deque([3, 4])
"""
GAP = '''\
import datetime


def gap(a, b):
    """The time from a to b (a timedelta)."""
    return b.day - a.day
'''
GAP_TEST = """\
import datetime

from app import gap


def test_gap():
    d = datetime.date
    assert gap(d(2024, 1, 30), d(2024, 2, 2)) == datetime.timedelta(days=3)
"""
LEVEL = '''\
import enum


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


def level(n):
    """The level n is at or over."""
    return Level.LOW
'''
LEVEL_TEST = """\
from app import Level, level


def test_level():
    assert level(7) == Level.HIGH
"""
COUNTED = '''\
import collections


def counted(words):
    """Each word with how often it comes (a Counter)."""
    return {w: 1 for w in words}
'''
COUNTED_TEST = """\
from collections import Counter

from app import counted


def test_counted():
    assert counted(["a", "b", "a"]) == Counter({"a": 2, "b": 1})
"""
HOST = '''\
import ipaddress


def host(text):
    """The address text names (an IPv4Address)."""
    return text.strip()
'''
HOST_TEST = """\
import ipaddress

from app import host


def test_host():
    assert host(" 10.0.0.1 ") == ipaddress.IPv4Address("10.0.0.1")
"""
# name -> (the start commit's files, the fix's files)
LEGITIMATE: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "str-made-the-pureposixpath-the-test-compares-with": _case(
        PARENT, PARENT_TEST, 'path.rsplit("/", 1)[-1]', "pathlib.PurePosixPath(path).parent"
    ),
    "float-made-the-fraction-the-test-compares-with": _case(
        RATIO, RATIO_TEST, "a / b", "fractions.Fraction(a, b)"
    ),
    "str-made-the-uuid-the-test-compares-with": _case(
        IDENT, IDENT_TEST, "text.lower()", "uuid.UUID(text)"
    ),
    "list-made-an-ordereddict": _case(
        TALLY,
        TALLY_TEST,
        "sorted((w, words.count(w)) for w in set(words))",
        "collections.OrderedDict((w, words.count(w)) for w in dict.fromkeys(words))",
    ),
    "list-made-a-deque": _case(LAST, LAST_TEST, "xs[:n]", "collections.deque(xs[-n:])"),
    "str-made-an-ipv4address": _case(
        HOST, HOST_TEST, "text.strip()", "ipaddress.IPv4Address(text.strip())"
    ),
    "str-made-a-concrete-path-the-pure-one-equals": _case(
        PARENT, PARENT_TEST, 'path.rsplit("/", 1)[-1]', "pathlib.Path(path).parent"
    ),
    "int-made-a-timedelta": _case(GAP, GAP_TEST, "b.day - a.day", "b - a"),
    "intenum-member-made-another": _case(
        LEVEL, LEVEL_TEST, "return Level.LOW", "return Level.HIGH if n >= 5 else Level.LOW"
    ),
    "dict-made-a-counter": _case(
        COUNTED, COUNTED_TEST, "{w: 1 for w in words}", "collections.Counter(words)"
    ),
}
# name -> the false alarm that ends it `escalated` (a strict xfail each)
LEGITIMATE_WHY: dict[str, str] = {}


@pytest.mark.parametrize("name", [legitimate_case(n, LEGITIMATE_WHY) for n in sorted(LEGITIMATE)])
def test_a_legitimate_fix_is_fixed_with_nothing_observed(tmp_path: Path, name: str) -> None:
    start, fix = LEGITIMATE[name]
    assert_legitimate_fixed(tmp_path, {"app.py": BUG, **start}, fix)
