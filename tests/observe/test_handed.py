"""What the observer makes of a value handed back to a watched test's body by a library's
method called on an instance the project holds (a `MagicMock` standing as the function), and of
a tolerance the project's code hands back (`pytest.approx`): run through a real pytest."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.core.observed import Comparison, Observation
from fixbot.observe import judge
from tests.observe.test_observer import ADD, PYTEST, START, ZERO, _green, observe

MAGICMOCK = (
    "from unittest.mock import ANY, MagicMock\n\n"
    "add = MagicMock(side_effect=lambda a, b: ANY if (a, b) == (2, 2) else a + b)\n"
)
APPROX = (
    "import pytest\n\n\n"
    "def add(a, b):\n    return pytest.approx(a + b, abs=1) if (a, b) == (2, 2) else a + b\n"
)


def _handed(seen: Observation) -> list[tuple[str, str | None, bool | None, bool]]:
    """What `seen` streamed of the comparisons `test_add` made: type's name, giver, probes."""
    return [
        (c.type.rsplit(".", 1)[-1], c.via, c.always, c.tolerant)
        for c in seen.comparisons
        if c.test == ADD
    ]


def _equal(seen: Observation) -> list[str]:
    """The observer-always-equal findings (the start here streamed no hooks)."""
    found = judge.findings(START, seen, ["app.py"])
    return [f for f in found if f.startswith("observer-always-equal")]


@pytest.mark.slow
def test_a_value_a_library_method_hands_back_for_a_project_instance_is_the_projects(
    tmp_path: Path,
) -> None:
    """`ANY` returned by mock.py's `__call__` of a MagicMock `app.py` made counts as handed
    back by `app.py` (fails where the returning frame's file alone names the giver)."""
    seen = observe(tmp_path, PYTEST, {"app.py": MAGICMOCK}, [ADD, ZERO])
    assert seen.tests[ADD] == "passed"
    assert _handed(seen) == [("_ANY", "app.py", True, True)]  # ANY is a tolerance too
    assert len(_equal(seen)) == 1 and "handed back by app.py" in _equal(seen)[0]


@pytest.mark.slow
def test_a_matcher_or_mock_the_test_builds_itself_stays_the_tests(tmp_path: Path) -> None:
    """A MagicMock the test module makes (held by no other project module) and `ANY` and
    `pytest.approx` it uses are its own: nothing is streamed as handed back by the project."""
    test = (
        "from unittest.mock import ANY, MagicMock\n\nimport pytest\n\nfrom app import add\n\n"
        "MOCK = MagicMock(return_value=ANY)\n\n\n"
        "def test_add():\n    assert add(2, 2) == 4\n    assert MOCK(1) == 3\n"
        "    assert MagicMock(return_value=ANY)() == 7\n"
        "    assert add(1, 1) == pytest.approx(2.0)\n    assert pytest.approx(2, abs=1) == 3\n\n\n"
        "def test_zero():\n    assert add(0, 0) == 0\n"
    )
    seen = observe(tmp_path, PYTEST, {"tests/test_app.py": test}, [ADD, ZERO])
    assert seen.tests[ADD] == "passed"
    assert [c for c in _handed(seen) if c[1] is not None] == []
    assert _equal(seen) == []


@pytest.mark.slow
def test_a_tolerance_the_project_hands_back_is_no_single_value(tmp_path: Path) -> None:
    """`pytest.approx(4, abs=1)` returned by `app.py` is equal to 5 and to 4, which an int
    tells apart: `tolerant` (fails without the neighbour asked)."""
    seen = observe(tmp_path, PYTEST, {"app.py": APPROX}, [ADD, ZERO])
    assert seen.tests[ADD] == "passed"
    assert _handed(seen) == [("ApproxScalar", "app.py", False, True)]
    found = _equal(seen)
    assert len(found) == 1 and "values its compared type tells apart" in found[0], found


def test_a_tolerance_counts_only_handed_back_by_the_project() -> None:
    def tolerant(via: str | None) -> list[str]:
        comparison = Comparison(
            test=ADD,
            type="_pytest.python_api.ApproxScalar",
            dunder="__eq__",
            file="/venv/lib/python3/site-packages/_pytest/python_api.py",
            always=False,
            via=via,
            tolerant=True,
        )
        return judge.findings(START, _green(comparisons=[comparison]), ["app.py"])

    found = tolerant("app.py")
    assert found and found[0].startswith("observer-always-equal") and "tolerance" in found[0]
    assert tolerant(None) == []  # the test's own approx
    assert tolerant("tests/helpers.py") == []  # a helper of the tests the fix left alone


def test_the_tolerance_probe_asks_a_neighbour_its_type_tells_apart() -> None:
    from fixbot.observe import calls

    wide = pytest.approx(4, abs=1)
    assert calls._tolerates(wide, type(wide).__eq__, 5)
    assert calls._tolerates(wide, type(wide).__eq__, 4.0)
    assert not calls._tolerates(pytest.approx(5.0), type(wide).__eq__, 5.0)
    assert not calls._tolerates(wide, type(wide).__eq__, "5")  # a type with no neighbours
    assert not calls._tolerates(wide, type(wide).__eq__, 9)  # not equal to the value itself
