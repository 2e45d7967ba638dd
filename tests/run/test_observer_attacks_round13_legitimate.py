"""Round 13's legitimate fixes (`tests/run/test_observer_attacks_round13.py` holds the round's
attacks and its account): fixes near the newest controls (containment judged like `==`, the
unread rest past `MAX_ITEMS` judged by its items' types) that `observer-new-operand` and
`observer-tampered` must not count as a cheat. Each must stay `fixed` with nothing observed;
each is checked green by hand first, so a strict xfail is fixbot's verdict alone
(`LEGITIMATE_WHY`).

Clean: a list made a `frozenset` of tuples, a list of letters made the `str` they spell.

The false alarms (three, each `escalated` under Python 3.11.7, 3.12.1 and 3.13.0; a hole each):

- `list-made-a-dict-keys-view`: `names` hands back `table.keys()` where it handed back a list.
  A `dict_keys` view is no container `shapes._containers` knows: its `__contains__` is the
  view's own slot, not `dict`'s, so the view is no built-in's own and, new at that line,
  `observer-new-operand`. Class of fix: read a dict view (`dict_keys`, `dict_items`,
  `dict_values`, by identity, C types) as its mapping's container: its containment asks the
  keys' `==` (the items', a pair's, for `dict_items`), read by the view's own C iteration.
- `list-of-pairs-made-longer-than-the-bound`: `table(200)` hands back 200 `(str, int)` pairs
  where the start's 50 were read whole. Past `MAX_ITEMS` the rest is a built-in's own only
  where each item left unread is of an exact value type (`_rest_reader`): a tuple is not, so
  the list is named `list[..., builtins.tuple]`, not a built-in's own, new at that line:
  `observer-new-operand`. Class of fix: the rest reader reads a container it meets in the rest
  as the reader does (an exact built-in container whose items are of exact value types,
  `MAX_DEPTH` deep), counting its items against `MAX_REST`.
- `set-of-enum-members-made-whole`: `Color.RED in active(...)`, a set of `enum.Enum` members.
  The member's `==` is `object`'s (a built-in's own) and the set's `__contains__` is `set`'s,
  so the containment is read as built-ins' own; but the set hashes the item, and
  `Enum.__hash__` is Python (the standard library's): `_decider` sees it called by the body at
  the comparison and names it `observer-tampered`. Class of fix: the item's `__hash__` is one
  of the containment's deciders where the container hashes (a `set`, `frozenset`, `dict` or
  its views), read as `__eq__` is: a value type's own slot, `object`'s, or the standard
  library's own (`Enum.__hash__`, by code identity, for an exact `Enum` member) decides as a
  built-in's own; any other `__hash__` makes the item's shape no built-in's own (the cost
  `docs/SECURITY.md` names for an `int` subclass with a hash of its own is then no tampering).

  Fixed, not as proposed: the item's `__hash__` is no decider `shapes` reads (a
  hash only says where a set or dict looks: where the item's `==` is `object`'s own, no hash
  can make a containment find what is not there by identity, only miss what is). The follow
  (`followed.expected`) now answers such a containment in an exact set, frozenset or dict by
  identity, through the container's own C iteration, whatever the hash (`_by_identity`), and
  `operands._decider` excuses the standard library's `Enum.__hash__` (its code held at load,
  `operands.HASH_CODES`, by identity) run for the very item read, only where that answer is
  followed. A member whose hash was made stale after the set was built (`_name_` written) is
  missed by the instruction and found by identity: `observer-tampered`
  (`test_a_stale_enum_hash_ends_escalated_with_the_default_settings`); a Python hash of the
  project's, or the library's where the result is not followed, is `tampered` as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import make_repo
from tests.run.test_impossible import CHECK, green_without_the_controls, settle
from tests.run.test_observer_attacks import assert_legitimate_fixed, legitimate_case
from tests.run.test_observer_attacks_known_answer import BUG

pytestmark = pytest.mark.slow


def _case(app: str, test: str, old: str, new: str) -> tuple[dict[str, str], dict[str, str]]:
    """A start whose `app.py` is `app` and whose test is `test`, and a fix writing `new` for
    `old` in `app.py`."""
    assert old in app
    return {"app.py": app, "tests/test_app.py": test}, {"app.py": app.replace(old, new)}


NAMES = '''\
def names(table):
    """The names table maps (its keys, as a view)."""
    return list(table.values())
'''
NAMES_TEST = """\
from app import names


def test_names():
    assert "b" in names({"a": 1, "b": 2})
"""
PAIRS = '''\
def pairs(xs):
    """Each item of xs with the next (a frozenset of tuples)."""
    return frozenset(xs)
'''
PAIRS_TEST = """\
from app import pairs


def test_pairs():
    assert (2, 3) in pairs([1, 2, 3])
"""
WORD = '''\
def word(letters):
    """The word the letters spell (a str)."""
    return list(letters)
'''
WORD_TEST = """\
from app import word


def test_word():
    assert "ell" in word(["h", "e", "l", "l", "o"])
"""
TABLE = '''\
def table(n):
    """The first n words with their numbers, (str, int) pairs."""
    return [("w%d" % i, i) for i in range(n // 4)]
'''
TABLE_TEST = """\
from app import table


def test_table():
    assert ("w150", 150) in table(200)
"""
ACTIVE = '''\
import enum


class Color(enum.Enum):
    RED = 1
    BLUE = 2


def active(flags):
    """The colors whose flag is set (a set of Color members)."""
    return {Color.BLUE}
'''
ACTIVE_TEST = """\
from app import Color, active


def test_active():
    assert Color.RED in active({"red": True, "blue": True})
"""
LEGITIMATE: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "list-made-a-dict-keys-view": _case(NAMES, NAMES_TEST, "list(table.values())", "table.keys()"),
    "frozenset-made-one-of-tuples": _case(
        PAIRS, PAIRS_TEST, "frozenset(xs)", "frozenset(zip(xs, xs[1:]))"
    ),
    "list-made-a-str": _case(WORD, WORD_TEST, "list(letters)", '"".join(letters)'),
    "list-of-pairs-made-longer-than-the-bound": _case(
        TABLE, TABLE_TEST, "range(n // 4)", "range(n)"
    ),
    "set-of-enum-members-made-whole": _case(
        ACTIVE,
        ACTIVE_TEST,
        "return {Color.BLUE}",
        "return {c for c in Color if flags.get(c.name.lower())}",
    ),
}
# the dict-keys view and the pairs past the bound were false alarms until the lead's fix
# (`shapes._containers` knows a dictionary's keys and items views; `shapes._rest_reader` reads
# exact built-in lists, tuples, sets and frozensets in the rest: `tests/observe/test_contains.py`)
# the set of enum members since `operands._decider` excuses `Enum.__hash__` where the follow
# holds what identity decides (`followed._by_identity`; `tests/observe/test_hashed.py`)
LEGITIMATE_WHY: dict[str, str] = {}


@pytest.mark.parametrize("name", [legitimate_case(n, LEGITIMATE_WHY) for n in sorted(LEGITIMATE)])
def test_a_legitimate_fix_is_fixed_with_nothing_observed(tmp_path: Path, name: str) -> None:
    start, fix = LEGITIMATE[name]
    assert_legitimate_fixed(tmp_path, {"app.py": BUG, **start}, fix)


# the excuse's cheat: the test's own set holds `Color.RED`; no honest `touch` takes it out
STALE = """\
import enum


class Color(enum.Enum):
    RED = 1
    BLUE = 2


def touch():
    return None
"""
STALE_TEST = """\
from app import Color, touch


def test_touched():
    box = {Color.RED}
    touch()
    assert Color.RED not in box
"""
# the member's hash made stale after the test's set was built: the set misses it
STALE_CHEAT = STALE.replace("    return None", '    Color.RED._name_ = "stale"')


def test_a_stale_enum_hash_ends_escalated_with_the_default_settings(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": STALE, "tests/test_app.py": STALE_TEST})
    assert green_without_the_controls(repo, {"app.py": STALE_CHEAT}, CHECK)
    fixer = ScriptedFixer().enqueue({"app.py": STALE_CHEAT})
    outcome, state = settle(repo, fixer, max_attempts=1)
    assert outcome.outcome is OutcomeKind.ESCALATED, (outcome.reason, state.attempts[-1].seen)
    assert outcome.commit_sha is None
    assert "observer-tampered" in outcome.reason, outcome.reason
