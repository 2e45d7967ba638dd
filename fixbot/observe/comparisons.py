"""fixbot's reading of the observer's comparison records (`stream.parse` hands each to its
function by kind): what a test's failing assertion compared (`fail`), what a watched body
compared (`op`), the comparison dunders a watched call ran (`eq`), those the profile function
saw as they ran (`saw`), a table past its bound (`full`), a value's answer asked again
(`said`), and the follow of each comparison read as built-ins' own (`follows`, `fol`: each
`op` at a followed offset owes one, paired here). Each adds to an `Observation`; `scratch`
(what reading keeps between records) is not theirs to use."""

from __future__ import annotations

import contextlib

from fixbot.core.observed import MAX_COMPARED, Compared, Comparison, Observation, Operand, Sighting
from fixbot.observe.followed import TAMPERED

MAX_FOLLOWS = 2000  # offsets of a test's followed comparisons kept at most


def _operands(record: dict[str, object], test: str) -> Compared | None:
    """A `fail` or `op` record (`fixbot.observe.failed`, `fixbot.observe.operands`) as a
    `Compared`, or None where it is not one."""
    shapes = record.get("s")
    line, op = record.get("line"), record.get("op")
    if not isinstance(shapes, list) or not isinstance(line, int) or not isinstance(op, str):
        return None
    operands = tuple(
        Operand(
            type=str(s.get("t", ""))[:2000],  # a container names its items' shapes
            c=s.get("c") is True,
            owner=str(s.get("o", ""))[:300],
            code=str(s.get("h", ""))[:20],
        )
        for s in shapes[:2]
        if isinstance(s, dict)
    )
    nested = record.get("n") is True  # a frame of the test module's other code (`op` alone)
    return Compared(test=test, line=line, op=op[:6], operands=operands, nested=nested)


def fail(seen: Observation, record: dict[str, object], test: str, scratch: object) -> None:
    """A `fail` record: the operands of the comparison a failing assertion made."""
    compared = _operands(record, test)
    if compared is not None and compared not in seen.failed_at:
        seen.failed_at.append(compared)


def op(seen: Observation, record: dict[str, object], test: str, scratch: object) -> None:
    """An `op` record: the operands of a comparison a watched body made."""
    compared = _operands(record, test)
    if compared is not None and len(seen.compared) < MAX_COMPARED:
        seen.compared.append(compared)
    at = record.get("at")
    if compared is not None and type(at) is int and _owes(seen, compared, at):
        owed = seen.unfollowed.setdefault(test, [])
        if len(owed) < MAX_COMPARED:
            owed.append((at, compared.line))


def _owes(seen: Observation, compared: Compared, at: int) -> bool:
    """Whether an `op` record owes a `fol`: a comparison of the body's own (not `nested`: the
    offsets streamed in `follows` are the body's code's; a frame of other code of the test
    module's is followed, but not paired) at an offset the observer said it follows
    (`follows`), both operands read as built-ins' own (`followed.follower` plans those alone)."""
    both = len(compared.operands) == 2 and all(o.c for o in compared.operands)
    body = not compared.nested and compared.op != "bool"
    return both and body and at in seen.follows.get(compared.test, ())


def follows(seen: Observation, record: dict[str, object], test: str, scratch: object) -> None:
    """A `follows` record: the offsets of a watched body's comparisons whose instruction the
    observer follows, streamed as its call began (before any comparison's `op`)."""
    offsets = record.get("at")
    if not isinstance(offsets, list):
        return
    kept = seen.follows.setdefault(test, [])
    known = set(kept)
    for at in offsets[:MAX_FOLLOWS]:
        if type(at) is int and at not in known and len(kept) < MAX_FOLLOWS:
            kept.append(at)
            known.add(at)


def fol(seen: Observation, record: dict[str, object], test: str, scratch: object) -> None:
    """A `fol` record: a follow's outcome (`ok`: the instruction decided what the values read
    decide), which pays the oldest `op` of its test at its offset still owed one; an outcome
    not `ok` is `tampered`, as the observer's own record of it says (which project code could
    keep from going out by marking it sent)."""
    at, owed = record.get("at"), seen.unfollowed.get(test, [])
    for n, (offset, _) in enumerate(owed):
        if offset == at:
            del owed[n]
            break
    if record.get("ok") is False and TAMPERED not in seen.tampered.setdefault(test, []):
        seen.tampered[test].append(TAMPERED)


def eq(seen: Observation, record: dict[str, object], test: str, scratch: object) -> None:
    """An `eq` record: a comparison dunder a watched test's call ran, judged as it ended."""
    with contextlib.suppress(ValueError):
        seen.comparisons.append(Comparison.model_validate(record | {"test": test}))


def saw(seen: Observation, record: dict[str, object], test: str, scratch: object) -> None:
    """A `saw` record: a comparison seen by the profile function as it ran."""
    with contextlib.suppress(ValueError):
        seen.saw.append(Sighting.model_validate(record | {"test": test}))


def full(seen: Observation, record: dict[str, object], test: str, scratch: object) -> None:
    """A `full` record: the trace function saw more comparisons than it streams."""
    if test and test not in seen.full:
        seen.full.append(test)


def said(seen: Observation, record: dict[str, object], test: str, scratch: object) -> None:
    """A `said` record: what a value handed back answered when asked again after the call."""
    said = record.get("v")
    key = f"{test} {record.get('fn')} {record.get('obj')}"
    if isinstance(said, bool) and key not in seen.answers:
        seen.answers[key] = said
