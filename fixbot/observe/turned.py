"""Which type turned a comparison the start's run failed at: pure, over two `Observation`s;
`fixbot.observe.judge` gathers it with the other findings.

At the start commit a test failed at a comparison its body made (`Observation.failed_at`, with
the types it compared: `fixbot.observe.operands`). The fix makes it pass. Where the test fixes
one side of that comparison (`assert add(2, 2) == 5`), the comparison turns only when the fix
hands back a value that compares otherwise: an honest fix does it with a value of a type whose
comparison is a built-in's own (an `int` where there was `None`) or of a type the start's run
compared there too (a dataclass with the right fields); a cheat does it with a value of a new
type whose comparison says equal, however that comparison is spelled (a caller-sensitive
`__eq__`, a bound `mock.ANY.__eq__`, a `functools.partial`, a class claiming another module).
So the verifying run's comparisons of the same test at the same line (`Observation.compared`,
seen by the observer's trace function) are compared with the start's: a type deciding one that
is no built-in's own comparison and is not among those the start's run compared there
(`observer-new-operand`), or no comparison seen at that line while the test passed (the line
not reached, or the observer's trace function removed), is a finding.

A built-in's own comparison is an allowlist (`shapes.shape_reader`): an exact value type
whose comparison runs no code of anyone's, a heap type whose deciding dunders are a value
type's own slots, a container deciding by its container type's own slot (an exact list, a
namedtuple) whose items (keys and values, bounded) are all such, or an exact type of the
standard library whose comparison is Python (`fractions.Fraction`, `collections.Counter`,
`pathlib`'s paths...) while what that comparison reaches is what it was at the observer's load,
judged by what it holds as a container is (`library.py`).
Any other type (a `weakref.proxy` or `mappingproxy`, which ask the object they wrap; a
container of a class's instances, which asks theirs) is known only where the start's run
compared the same shape there: a container's shape names its items' shapes, and a class's
instance's names what it holds that is no built-in's own (its slots' and `__dict__`'s values:
the start's `Point` handed back holding a caller-told field is new). Where the trace
function saw more comparisons than it streams, or was called by another's, the findings are
`observer-overflow` and `observer-tampered` (`fixbot.observe.compared`, `judge`).

A type the start compared there is known only with the same comparison code: `(type, owner,
code)`, `code` a digest of the deciding dunder's code without its first lines
(`bodies._comparison_digest`: a class moved down its file is the same). The same class's
`__eq__` rewritten to say equal to a test's body is new; so is a legitimate fix of a buggy
`__eq__` deciding the failing assertion, or a dataclass whose compared fields changed (the
cost, chosen: a human looks at a fix that changes what `==` means under the failing
assertion; docs/SECURITY.md).

A containment (`x in y`, `not in`) is judged as a rich comparison is: the item's shape read as
`==`'s operand, the container's by its `__contains__` and its items (`shapes.SIDES`).

A bare assertion of a value's truth (`assert r`, `assert not r`, `assert f(x)`: op "bool",
`fixbot.observe.truth`) is judged as a comparison is, against the truth tests seen at its line
alone: the operand's shape is its truth's, a built-in's own where asking it runs no code (a
`bool`, `None`, a number, a built-in container's length, or a type with neither `__bool__` nor
`__len__`, a dataclass's instance); a class with a `__bool__` or `__len__` of its own (a Python
function, or C made to answer so: `True.__bool__`) that the start's run did not test there is
new.

A comparison or truth test made in a frame of other code of the test module's while the body
ran (round 14: a generator expression's, `all(a == b for ...)`; a helper's, `_same(got, want)`
returning `got == want`; a lambda's) is streamed at the line of the body's statement that ran it
(`Compared.nested`, `fixbot.observe.operands.tracer`) and counts towards the comparison the
start failed at on that line, whether that was a comparison or a truth test (`assert
all(...)`, `assert _same(...)`): a type deciding it that the start's run did not compare there,
whose comparison is C code that is no built-in's own (`staticmethod(bool)`, a
`functools.partial`: no Python frame), or a container naming such an item or items left unread,
is `observer-new-operand`. One decided by a Python function (a dataclass of the test module's
compared in a helper, a container of them) is not new by this rule alone: the start's run
streamed nothing of that frame to know it by (only its failing assertion's operands), and the
profile function judges every Python comparison dunder a watched call runs, wherever its frame
(`observer-always-equal`). The cost, chosen: a C type of a library that is no built-in's own
(a NumPy array) compared in a helper on the failing line is new (a human looks).

Outside the rule: a test whose start failure was no comparison or truth test of its body (an
exception, a helper's assertion, a truth test of an expression that is no name: pytest names
the calls and attributes it asserts), or an identity (`is`); a test whose file the fix changed.
"""

from __future__ import annotations

from fixbot.core.observed import Compared, Observation, Operand
from fixbot.observe import shapes
from fixbot.tamper.changes import is_test_file


def new_operands(
    start: Observation | None, last: Observation, watched: set[str], files: list[str]
) -> list[str]:
    """The `observer-new-operand` findings: for each test of `watched` whose body failed at a
    comparison in the start's run, the types that decided its comparisons at that line now
    and that the start's run did not compare there (none is a built-in's own comparison), or
    no comparison seen there while the test passed now; none where the fix changed the test's
    file (its node id's, or one its body's code names)."""
    if start is None:
        return []
    found = []
    for (test, line, truth), kinds in sorted(_known(start, watched).items()):
        if not _edited(last, test, files):
            found += _judged(test, line, kinds, last, truth)
    return found


Kind = tuple[str, str, str]  # an operand's type, owner and digest of its comparison's code
TRUTH = "bool"  # the op of a truth test (`assert r`: `fixbot.observe.truth`)


def _known(start: Observation, watched: set[str]) -> dict[tuple[str, int, bool], set[Kind]]:
    """(test, line, whether a truth test) -> the (type, owner, code) of each operand, none a
    built-in's own comparison, that the start's run compared at the comparison (or truth test)
    each watched test's body failed at."""
    known: dict[tuple[str, int, bool], set[Kind]] = {}
    for failed in start.failed_at:
        if failed.test in watched:
            kinds = known.setdefault((failed.test, failed.line, failed.op == TRUTH), set())
            kinds.update((o.type, o.owner, o.code) for o in failed.operands if not o.c)
    return known


def _judged(
    test: str, line: int, kinds: set[Kind], last: Observation, truth: bool = False
) -> list[str]:
    """The finding (none or one) for `test`'s comparison at `line` (its truth test, `truth`),
    where the start's run compared `kinds`, as the verifying run `last` saw it: a comparison
    is judged by the comparisons seen there, a truth test by the truth tests."""
    seen = _seen_at(last, test, line, truth)
    new = sorted(
        {
            _named(o.type, o.owner)
            for o in _undecided(seen)
            if (o.type, o.owner, o.code) not in kinds
        }
    )
    what = "truth test" if truth else "comparison"
    if new:
        return [
            f"observer-new-operand: {test}: its {what} at line {line}, where the start's"
            " run failed, was decided by a type that run did not compare there (or whose"
            " comparison's code the fix changed), whose comparison is no built-in's own:"
            f" {', '.join(new[:3])}"
        ]
    inner = _nested_new(test, line, kinds, last)
    if inner:
        return inner
    if not seen and _unseen(test, last):
        return [
            f"observer-new-operand: {test}: passed with no {what} seen at line {line},"
            " where the start's run failed at one (the line was not reached, or the"
            " observer's trace function was removed)"
        ]
    return []


def _nested_new(test: str, line: int, kinds: set[Kind], last: Observation) -> list[str]:
    """The finding (none or one) for the comparisons of the test module's other code that
    `test`'s body ran at `line` (`Compared.nested`): a type deciding one that the start's run
    did not compare there (`kinds`) and whose comparison is no Python function's nor a
    built-in's own (`_python_decided`)."""
    inner = sorted(
        {
            _named(o.type, o.owner)
            for o in _undecided(_nested_at(last, test, line))
            if (o.type, o.owner, o.code) not in kinds and not _python_decided(o)
        }
    )
    if not inner:
        return []
    return [
        f"observer-new-operand: {test}: a comparison of the test module's other code"
        f" (a generator expression, a helper) run by its line {line}, where the start's"
        " run failed, was decided by a type that run did not compare there, whose"
        f" comparison is C code no built-in's own: {', '.join(inner[:3])}"
    ]


def _seen_at(last: Observation, test: str, line: int, truth: bool) -> list[Compared]:
    """The comparisons (or, `truth`, the truth tests) the verifying run `last` saw `test`'s
    body make at `line` in its own frame."""
    return [
        c
        for c in last.compared
        if c.test == test and c.line == line and (c.op == TRUTH) == truth and not c.nested
    ]


def _nested_at(last: Observation, test: str, line: int) -> list[Compared]:
    """The comparisons and truth tests the verifying run `last` saw frames of `test`'s module's
    other code make while the body's frame was at `line` (`Compared.nested`)."""
    return [c for c in last.compared if c.test == test and c.line == line and c.nested]


# the owners (`Qualname.`) of the containers' own comparison slots, which ask their items'
# (`shapes._containers`): a container's shape names its items'
BOXES = tuple(f"{kind.__qualname__}." for kind, _ in shapes._containers())


def _python_decided(operand: Operand) -> bool:
    """Whether what decides `operand`'s comparison, and every item or held value its shape
    names (`shapes.shape_reader`), is a Python function (or a built-in's own): judged as it
    runs by the profile function wherever its frame (`fixbot.observe.watch`, probed:
    `observer-always-equal`); a C one that is no built-in's own (`staticmethod(bool)`, a
    `functools.partial`: no frame, no event) or items left unread (`...`) are not."""
    if " @-" in operand.type or "..." in operand.type:  # an item decided by C, or unread
        return False
    if operand.code not in ("", "-"):
        return True
    return "[" in operand.type and operand.owner.startswith(BOXES)


def _undecided(seen: list[Compared]) -> list[Operand]:
    """The operands of `seen` whose comparison is no built-in type's own."""
    return [o for c in seen for o in c.operands if not o.c]


def _named(kind: str, owner: str) -> str:
    """An operand's type in the finding's words (both names are what the class claims)."""
    return f"{kind} (compared by {owner})"


def _unseen(test: str, last: Observation) -> bool:
    """Whether `test` passed where the observer watched it, its calls run where the channel
    is (no xdist worker), and the stream read whole."""
    watched = test in last.watching and not (last.distributed or last.overflow)
    return watched and last.tests.get(test) == "passed"


def _edited(last: Observation, test: str, files: list[str]) -> bool:
    """Whether the fix changed `test`'s file, or a test file its body's code names."""
    paths = [test.split("::", 1)[0], *last.sources.get(test, ())]
    return any(is_test_file(f) and (f == p or f.endswith("/" + p)) for f in files for p in paths)
