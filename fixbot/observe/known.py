"""The known-answer test's function (`must_fail`), alone in its file: the observer runs it
through pytest's call and report machinery, which formats its failure as any test's, and
pytest's failure report parses the whole source file of the failing function (an `ast.parse`
per report, `_pytest._code.source.getstatementrange_ast`): in `calls.py`, 375 lines, about
4 ms a parse, twice a report, once or twice a session; in this file, a few lines.

Copied beside the pytest plugin (`fixbot.observe.channel`'s `PARTS`, as `<module>_known`),
inside the project's own Python (3.8 or later); imports nothing.
"""

KNOWN = "fixbot_known_answer"  # the known-answer test's name and the text of its failure


def must_fail() -> None:
    """The known-answer test: it fails, whatever the code under test does."""
    raise AssertionError(KNOWN + ": this test must fail")
