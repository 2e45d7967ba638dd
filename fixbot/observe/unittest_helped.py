"""Which frames' comparisons the unittest observer's profile function follows beyond the test
module's and unittest's own (helpereq, #39): those of every module of the work tree, the tests'
helper modules among them. Round 43 (run, not kept): round 41's helper project, test_app.py
calling tests_helpers.py calling the pinned checks.py's `assert_alike` (`if first != second:
raise`), `add` handing back a value whose `__ne__` answers "not different" where its caller's
file is checks.py and honestly anywhere else, ended `fixed`: `unittest_seen._follow` took the
`call` event of a dunder only where its caller's globals were the test module's or
`unittest.case`'s, and the probe's questions, asked from the observer's frame, got honest
answers.

The rule is the files', not a list of the tests' support: a frame whose code's file is under the
work tree's root, or is no file at all (code built at run time), is followed
(`unittest_equal._kind`: `OURS`); a frame of the standard library's, an installed package's or
the observer's own is not. The code's modules are followed too (the process cannot tell the
tests' support from the code: the list of the tests' files is fixbot's): an honest dunder
answers the same question the same twice (`unittest_seen._retold`), and fixbot names only a
type whose code is the fix's or built at run time (`compared.comparisons`), so following the
code's comparisons names nothing the fix did not make. Cost: a `call` event of a frame that
another module's frame calls reads the caller's `f_code` (its file and bytecode: each code's
answer kept by its id, one with no comparison answered from the memo), an audited attribute
the observer's audit hook sees: about 1.8 us a Python call below a watched body, whether the
caller is the code's, a helper's or a library's (bench/README.md, helpereq); a `return` or C
event pays an identity test.

Limits: a comparison made by a library's frame (`unittest.mock`'s `assert_called_with`'s
`expected != actual`) is not followed; a library installed inside the work tree (a `.venv`
there) is the work tree's: followed, at the same cost.

Also here, out of `unittest_seen.py`'s lines: `_first` and `_fresh`, the memo of the pairs of
types asked again and of the records sent, each once.

An observer part: copied beside `unittest_observer.py` as `<module>_unittest_helped`, imported by
`unittest_seen` only in a unittest run (the observer's `PARTS`) and taken out of `sys.modules`
once loaded. What each uses is held as positional defaults; it imports the standard library
alone and nothing of fixbot's.
"""

from __future__ import annotations

import importlib
import os
import sysconfig
from opcode import opmap

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _sibling(name: str) -> Any:
    """The observer's part `name`, copied beside this one (`<module>_<name>`, this module being
    `<module>_unittest_helped`), or `fixbot.observe.<name>` where imported from fixbot's
    package."""
    package, _, module = __name__.rpartition(".")
    return importlib.import_module(
        f"{package}.{name}" if package else module[: -len("unittest_helped")] + name
    )


equal = _sibling("unittest_equal")  # `_kind`: a file the work tree's, a library's or elsewhere
CODES = 4_096  # code objects whose answer `_ours` keeps, at most (past it, each is asked again)
# the instructions of a frame's own comparison whose dunders a Python frame of other code runs
# (`IS_OP` runs none), by number: `dis.opmap`'s, read once at load (`unittest_seen.SITES`)
SITES = frozenset(opmap[name] for name in ("COMPARE_OP", "CONTAINS_OP") if name in opmap)


def _ours(root: str, case: dict[str, Any]) -> Any:
    """`followed(frame, back, event, pending)`: whether the profile event `event` of `frame`,
    called by `back` (a frame of another module than the test's), goes on to
    `unittest_seen._follow`: a `return` of the frame last noted in `pending` (`_follow`'s); a
    `call` of a frame not `unittest.case`'s (`case`, its globals) where `back` is
    `unittest.case`'s or runs code whose `co_filename` is the work tree's (under `root`, a str
    ending in the path separator) or no file (built at run time: `unittest_equal._kind`'s
    `OURS`) and stands at one of its comparisons (`f_lasti` at a `SITES` instruction); no other
    event. Each code's answer (its bytecode where followed and
    holding a comparison, else None) kept by its id, the code held alive beside it (`CODES` at
    most: past it, each is worked out again)."""
    paths = sysconfig.get_paths()  # the interpreter's library folders, resolved
    folders = tuple(os.path.join(os.path.realpath(paths[k]), "") for k in equal.LIBRARY_PATHS)
    known: dict[str, str] = {}  # `_kind`'s answers, by file
    kept: dict[int, Any] = {}

    def learn(code: Any, _kind: Any = equal._kind, _str: Any = str, _sites: Any = SITES) -> Any:
        try:
            mine = _kind(_str(code.co_filename), root, folders, known) == equal.OURS
        except Exception:
            mine = True  # a file name that cannot be resolved: followed
        found = code.co_code if mine and any(b in _sites for b in code.co_code[::2]) else None
        if len(kept) < CODES:
            kept[id(code)] = (code, found)
        return found

    def followed(
        frame: Any,
        back: Any,
        event: str,
        pending: list[Any],
        _kept: dict[int, Any] = kept,
        _learn: Any = learn,
        _case: dict[str, Any] = case,
        _sites: frozenset[int] = SITES,
        _id: Any = id,
        _len: Any = len,
    ) -> bool:
        if event == "return":  # only of the dunder `_follow` noted last
            return _len(pending) > 0 and pending[-1][0] is frame
        if event != "call" or frame.f_globals is _case:
            return False
        if back.f_globals is _case:
            return True
        code = back.f_code
        held = _kept.get(_id(code))
        sites = held[1] if held is not None and held[0] is code else _learn(code)
        at = back.f_lasti
        return sites is not None and 0 <= at < _len(sites) and sites[at] in _sites

    return followed


def _first(memo: dict[Any, Any], held: tuple[Any, ...], _id: Any = id, _len: Any = len) -> bool:
    """Whether the objects `held` are new to `memo` (by their ids, each kept alive there,
    `CODES` at most: past it, always new), noted."""
    key = ("q", *[_id(one) for one in held])
    kept = memo.get(key)
    if kept is not None and all(kept[i] is held[i] for i in range(_len(held))):
        return False
    if _len(memo) < CODES:
        memo[key] = held
    return True


def _fresh(
    records: Any,
    streamed: set[Any],
    _get: Any = dict.get,
    _len: Any = len,
    _most: int = CODES,
) -> list[Any]:
    """The `eq` records of `records` whose test, type, dunder and verdict (`always`) were not
    sent before (`streamed`, `CODES` kept at most; past them, every record is fresh)."""
    fresh = []
    for record in records:
        key: tuple[Any, ...] = (_get(record, "id"), _get(record, "type"))
        key += (_get(record, "dunder"), _get(record, "always"))
        if key in streamed:
            continue
        if _len(streamed) < _most:
            streamed.add(key)
        fresh.append(record)
    return fresh
