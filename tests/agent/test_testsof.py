"""The passing tests named after the functions a fix most likely changes (`fixbot.agent.testsof`):
a fix changing what a function returns must update the test that pins it, which the failing
output never names (the bench's `masterminds-semver-3-2-0-hyphen-range-and`)."""

from __future__ import annotations

from pathlib import Path

from fixbot.agent import context, locate, testsof
from tests.fakes.agent_repo import failure, fix_context, make_repo

RANGE_GO = """package semver

import "fmt"

func NewConstraint(c string) string {
	return rewriteRange(c)
}

func rewriteRange(i string) string {
	return fmt.Sprintf(">= %s, <= %s", i, i)
}
"""

RANGE_TEST_GO = """package semver

import "testing"

func TestConstraintsCheck(t *testing.T) {
	if NewConstraint("1") == "" {
		t.Error("empty")
	}
}

func TestRewriteRange(t *testing.T) {
	tests := []struct{ c, nc string }{
		{"2 - 3", ">= 2, <= 3"},
	}
	for _, tc := range tests {
		if o := rewriteRange(tc.c); o != tc.nc {
			t.Errorf("Range %s rewritten incorrectly as %q", tc.c, o)
		}
	}
}
"""

OTHER_TEST_GO = 'package other\n\nimport "testing"\n\nfunc TestRewriteRange(t *testing.T) {\n}\n'


def _go_repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path,
        {
            "go.mod": "module example.com/semver\n\ngo 1.19\n",
            "constraints.go": RANGE_GO,
            "constraints_test.go": RANGE_TEST_GO,
            "other/other_test.go": OTHER_TEST_GO,
        },
    )


def test_a_go_functions_test_in_its_own_package_is_found_and_the_failing_one_left_out(
    tmp_path: Path,
) -> None:
    repo = _go_repo(tmp_path)
    shown = [
        locate.Span("constraints.go", 5, 7, "NewConstraint", 1.0),
        locate.Span("constraints.go", 9, 11, "rewriteRange", 0.5),
        locate.Span("constraints_test.go", 5, 9, "TestConstraintsCheck", 0.4),
    ]
    found = testsof.spans(repo, shown, ["TestConstraintsCheck", "TestNewConstraint"])
    assert [(t.path, t.name, t.start, t.end) for t in found] == [
        ("constraints_test.go", "TestRewriteRange", 11, 20)
    ]
    assert found[0].limit == testsof.TEST_LINES


def test_a_python_functions_tests_are_found_by_name_with_its_leading_underscore_dropped(
    tmp_path: Path,
) -> None:
    tests = (
        "def test_start_of_option():\n    pass\n\n\n"
        "class TestParser:\n    def test_start_of_option_with_dash(self):\n        pass\n\n\n"
        "def test_start_of_optional():\n    pass\n\n\n"
        "def test_failing():\n    pass\n"
    )
    repo = make_repo(
        tmp_path,
        {"pkg/parser.py": "def _start_of_option(a):\n    return a\n", "tests/test_p.py": tests},
    )
    shown = [
        locate.Span("pkg/parser.py", 1, 2, "_start_of_option", 1.0),
        locate.Span("tests/test_p.py", 14, 15, "test_failing", 1.0),  # a test: no test of it
    ]
    found = testsof.spans(repo, shown, ["tests/test_p.py::test_failing"])
    assert [(t.name, t.start) for t in found] == [
        ("test_start_of_option", 1),
        ("test_start_of_option_with_dash", 6),
    ]


def test_the_test_pinning_a_suspects_result_is_shown_in_the_first_request(tmp_path: Path) -> None:
    """The failing output names `TestConstraintsCheck` only; the fix changes `rewriteRange`'s
    result, so `TestRewriteRange`'s expected rewrite must change with it: it is shown."""
    repo = _go_repo(tmp_path)
    digest = failure("--- FAIL: TestConstraintsCheck (0.00s)\n")
    digest = digest.model_copy(update={"failing_tests": ["TestConstraintsCheck"], "locations": []})
    suspects = [locate.Span("constraints.go", 9, 11, "rewriteRange", 1.0)]
    shown = context.gather(fix_context(repo, failure=digest), 6_000, suspects).reached
    assert "rewriteRange" in shown
    assert '{"2 - 3", ">= 2, <= 3"},' in shown  # TestRewriteRange's row
    assert shown.index("(rewriteRange)") < shown.index("(TestRewriteRange)")
    assert "(TestConstraintsCheck)" not in shown


STYLE_TESTS = """import pytest
from table import render


class TestStyle:
    @pytest.mark.parametrize(
        "style, expected",
        [
            pytest.param("plain", "a b", id="PLAIN"),
            pytest.param("markdown", "| : |", id="MARKDOWN"),
        ],
    )
    def test_style(self, style, expected):
        assert render(style) == expected

    @pytest.mark.parametrize(
        "style, expected",
        [
            pytest.param("plain", "A B", id="PLAIN"),
            pytest.param(
                "markdown",
                "| : | :-- |",
                id="MARKDOWN",
            ),
        ],
    )
    def test_style_align(self, style, expected):
        assert render(style, align="l") == expected


@pytest.mark.parametrize("style", [pytest.param("markdown", id="MARKDOWN"), "raw"])
def test_no_header(style):
    assert render(style, header=False)
"""


def _style_repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path,
        {
            "table.py": 'def render(style, align="c", header=True):\n    return style\n',
            "tests/test_style.py": STYLE_TESTS,
        },
    )


def test_the_failing_cases_rows_in_the_other_tests_of_its_file_are_found(tmp_path: Path) -> None:
    """`test_style[MARKDOWN]` fails: the `id="MARKDOWN"` rows of the other tests of its file
    are found (a stacked case's id matches each part), not the failing test's own rows, not
    another case's."""
    repo = _style_repo(tmp_path)
    found = testsof.same_case(repo, ["tests/test_style.py::TestStyle::test_style[MARKDOWN-x]"])
    assert [(t.name, t.start, t.end) for t in found] == [
        ("test_style_align[MARKDOWN]", 20, 24),
        ("test_no_header[MARKDOWN]", 31, 31),
    ]
    assert found[0].limit == testsof.TEST_LINES
    assert testsof.same_case(repo, ["tests/test_style.py::TestStyle::test_style"]) == []
    assert testsof.same_case(repo, ["tests/test_gone.py::test_style[MARKDOWN]"]) == []


def test_the_row_pinning_the_failing_case_in_a_test_beside_it_is_shown(tmp_path: Path) -> None:
    """The failing output names `test_style[MARKDOWN]` only; a fix changing what the Markdown
    style prints changes `test_style_align`'s Markdown row too (the bench's
    `prettytable-3-10-0-markdown-narrow-centred`): that row is shown, the plain one is not."""
    repo = _style_repo(tmp_path)
    digest = failure("FAILED tests/test_style.py::TestStyle::test_style[MARKDOWN]\n")
    failing = ["tests/test_style.py::TestStyle::test_style[MARKDOWN]"]
    digest = digest.model_copy(update={"failing_tests": failing, "locations": []})
    shown = context.gather(fix_context(repo, failure=digest), 6_000).reached
    assert '"| : | :-- |",' in shown
    assert "(test_style_align[MARKDOWN])" in shown
    assert '"A B"' not in shown
