"""fixbot's reading of the observer's comparison records (`stream.parse` hands each to its
function by kind): what a test's failing assertion compared (`fail`), what a watched body
compared (`op`), the comparison dunders a watched call ran (`eq`), those the profile function
saw as they ran (`saw`), a table past its bound (`full`) and a value's answer asked again
(`said`). Each adds to an `Observation`; `scratch` (what reading keeps between records) is
not theirs to use."""

from __future__ import annotations

import contextlib

from fixbot.core.observed import MAX_COMPARED, Compared, Comparison, Observation, Operand, Sighting


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
