"""One definition of an assertion that cannot fail (`fixbot.tamper.asserts.vacuous`): the
edit-time guard refuses exactly what the final-diff detector names, so the two cannot drift
(the guard once missed `... or True` and `assertTrue(1)` that the detector caught)."""

from __future__ import annotations

import pytest

from fixbot.agent.guard import tampering
from fixbot.tamper.changes import Change
from fixbot.tamper.cheats import detect

TEST = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        {}\n"
ORIGINAL = "self.assertEqual(add(1, 2), 3)"


@pytest.mark.parametrize(
    "vacuous",
    [
        "assert add(1, 2) == 3 or True",
        "self.assertTrue(1)",
        "self.assertEquals(add(1, 2), add(1, 2))",
        "assert [add(1, 2)]",
        "assert not None",
    ],
)
def test_the_guard_and_the_detector_agree_on_an_assertion_that_cannot_fail(vacuous: str) -> None:
    old, new = TEST.format(ORIGINAL), TEST.format(f"{ORIGINAL}\n        {vacuous}")
    reason = tampering("tests/test_app.py", old, new)
    assert reason is not None and "cannot fail" in reason
    found = detect([Change("tests/test_app.py", old, new)])
    assert [c.evidence for c in found] == ["an assertion that cannot fail was added"]
