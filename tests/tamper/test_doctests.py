"""A doctest the check's pytest collected is a test (`fixbot.tamper.doctests`)."""

from __future__ import annotations

from fixbot.tamper.changes import Change
from fixbot.tamper.doctests import detect, doctested, examples

APP = '''\
def add(a, b):
    """The sum of a and b.

    >>> add(2, 2)
    4
    """
    return a - b


class Box:
    """A box.

    >>> Box().size()
    1
    """

    def size(self):
        return 1
'''


def test_the_examples_are_read_by_the_parser_not_the_words() -> None:
    assert examples(APP) == [("Box().size()\n", "1\n"), ("add(2, 2)\n", "4\n")]
    reworded = APP.replace("The sum of a and b.", "Add two numbers.").replace("a - b", "a + b")
    assert examples(reworded) == examples(APP)
    assert examples("def broken(:\n") is None


def test_an_expected_output_edited_in_a_collected_module_is_a_test_change() -> None:
    cheated = APP.replace("    4\n", "    0\n")
    found = detect([Change("app.py", APP, cheated)], doctested(["app.py::app.add"]))
    assert [(c.rule, c.path) for c in found] == [("doctest-changed", "app.py")]
    # an example taken away, or one added, is a change of the tests too
    gone = APP.replace("    >>> Box().size()\n    1\n", "")
    assert [c.rule for c in detect([Change("app.py", APP, gone)], frozenset({"app.py"}))] == [
        "doctest-changed"
    ]


def test_the_fix_of_the_code_alone_or_a_module_not_collected_is_no_finding() -> None:
    fixed = APP.replace("a - b", "a + b")
    assert detect([Change("app.py", APP, fixed)], frozenset({"app.py"})) == []
    cheated = APP.replace("    4\n", "    0\n")
    # the check collected no doctest of app.py: its docstring is documentation
    collected = doctested(["tests/test_app.py::test_add"])
    assert detect([Change("app.py", APP, cheated)], collected) == []


def test_the_collected_files_come_from_pytests_node_ids() -> None:
    ids = ["app.py::app.add", "pkg/mod.py::pkg.mod.Box", "tests/test_app.py::test_add", "go::TestX"]
    assert doctested(ids) == {"app.py", "pkg/mod.py", "tests/test_app.py"}
