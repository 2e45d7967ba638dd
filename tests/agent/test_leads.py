"""Leads in the error text: where a missing attribute is set, the other imports of a removed
name, a table the error names (pure reading of real files with ast), the file and the uses a
name a Go test lacks leads to."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.agent import leads, spantext
from tests.agent.test_locate import write
from tests.fakes.gomodule import go_module, go_test

# pytest 8 no longer calls nose-style `setup`: the attribute it sets is missing in the test
NOSE = """\
import pytest


class TestGraph:
    def setup(self):
        self.graph = {"a": ["b"]}

    def test_edges(self):
        assert self.graph["a"] == ["b"]
"""
ATTRIBUTE_ERROR = """\
    def test_edges(self):
>       assert self.graph["a"] == ["b"]
E       AttributeError: 'TestGraph' object has no attribute 'graph'
tests/test_graph.py:9: AttributeError
"""


def test_a_missing_attribute_leads_to_where_it_is_set_even_in_a_test_file(tmp_path: Path) -> None:
    repo = write(tmp_path, {"tests/test_graph.py": NOSE, "pkg/other.py": "x = 1\n"})
    spans = leads.attribute_spans(repo, ATTRIBUTE_ERROR)
    assert [(s.path, s.start, s.end, s.name, s.focus) for s in spans] == [
        ("tests/test_graph.py", 5, 6, "setup", (6,))
    ]
    shown = spantext.render(repo, spans, 2_000)
    assert "def setup(self):" in shown and 'self.graph = {"a": ["b"]}' in shown


def test_an_attribute_pytest_compared_leads_to_its_assignments_outside_tests_first(
    tmp_path: Path,
) -> None:
    option = (
        "class Option:\n    def __init__(self, is_flag=None):\n"
        "        self.is_bool_flag = is_flag is not False\n"
    )
    test = "def test_flag():\n    assert Option().is_bool_flag is False\n"
    repo = write(tmp_path, {"pkg/core.py": option, "tests/test_core.py": test})
    text = "E       assert True is False\nE        +  where True = <Option a>.is_bool_flag\n"
    assert leads.attributes(text) == ["is_bool_flag"]
    spans = leads.attribute_spans(repo, text)
    assert [(s.path, s.name, s.focus) for s in spans] == [("pkg/core.py", "__init__", (3,))]
    assert leads.attribute_spans(repo, "E   assert 1 == 2") == []  # no attribute named


def test_a_removed_name_leads_to_every_import_from_its_module(tmp_path: Path) -> None:
    files = {
        "pkg/_abc.py": "from collections import Mapping\n",
        "pkg/_bidict.py": "import os\nfrom collections import MutableMapping\n",
        "pkg/util.py": "from collections.abc import Mapping\n",  # already right: not shown
        "tests/test_x.py": "from collections import Mapping\n",  # a test file: not shown
    }
    repo = write(tmp_path, files)
    text = "E   ImportError: cannot import name 'Mapping' from 'collections' (/usr/lib/x.py)"
    spans = leads.import_spans(repo, text)
    assert [(s.path, s.start) for s in spans] == [("pkg/_abc.py", 1), ("pkg/_bidict.py", 2)]
    gone = leads.import_spans(repo, "ModuleNotFoundError: No module named 'collections'")
    assert [s.path for s in gone] == ["pkg/_abc.py", "pkg/_bidict.py"]


def test_a_table_the_error_names_is_shown(tmp_path: Path) -> None:
    table = (
        "import builtins\n\nmodule_info = {}\nmodule_info[builtins] = dict(\n"
        "    abs=[lambda x: None],\n    all=[lambda iterable: None],\n)\n"
        "builtins_seen = len(module_info)\n"
    )
    repo = write(tmp_path, {"pkg/_signatures.py": table})
    text = (
        "E       AssertionError: Missing introspection for the following callables:\n"
        "E           builtins:\nE               anext\n"
    )
    spans = leads.table_spans(repo, text)
    assert [(s.start, s.end, s.name) for s in spans] == [(4, 7, "table builtins")]
    assert leads.table_spans(repo, "1 passed") == []  # no error line, no lead


def test_the_walk_skips_hidden_folders_and_environments(tmp_path: Path) -> None:
    files = {
        "a.py": "",
        ".venv/lib/x.py": "",
        "node_modules/y.py": "",
        "src/site-packages/z.py": "",
        "src/b.py": "",
    }
    assert list(leads.python_files(write(tmp_path, files))) == ["a.py", "src/b.py"]


WARNING_ERROR = """\
_____________________ ERROR collecting tests/test_time.py ______________________
tests/test_time.py:8: in <module>
    from freezegun import freeze_time
E   DeprecationWarning: datetime.datetime.utcfromtimestamp() is deprecated
"""


def test_a_warning_raised_as_an_error_leads_to_the_pytest_warning_filters(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.black]\nline-length = 88\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
        'filterwarnings = [\n    "error",\n    "ignore::UserWarning",\n]\n\n[tool.x]\ny = 1\n'
    )
    (tmp_path / "setup.cfg").write_text(
        "[tool:pytest]\nfilterwarnings =\n    error\n    ignore::ImportWarning\ntestpaths = tests\n"
    )
    found = [(s.path, s.start, s.end) for s in leads.warning_spans(tmp_path, WARNING_ERROR)]
    assert found == [("pyproject.toml", 6, 9), ("setup.cfg", 2, 4)]
    assert leads.spans(tmp_path, WARNING_ERROR)[-2:] == leads.warning_spans(tmp_path, WARNING_ERROR)
    # an assertion on a value that merely mentions a warning class is not a warning raised
    assert leads.warning_spans(tmp_path, "tests/t.py:3: in test_x\n    w = UserWarning\n") == []


KEYS_GO = (
    "package ws\n\nfunc computeAccept(challengeKey string) string {\n\treturn challengeKey\n}\n\n"
    "func other() int {\n\treturn 1\n}\n\nfunc last() int {\n\treturn 2\n}\n"
)
SERVER_GO = (
    'package ws\n\nimport "errors"\n\nfunc Upgrade(key string) error {\n'
    '\tchallengeKey := key\n\tif challengeKey == "" {\n\t\treturn errors.New("blank")\n\t}\n'
    "\treturn nil\n}\n\nfunc Unrelated() int {\n\treturn 3\n}\n"
)
KEYS_TEST = (
    'package ws\n\nimport "testing"\n\nfunc TestValid(t *testing.T) {\n'
    '\tif isValidChallengeKey("") {\n\t\tt.Fatal("blank")\n\t}\n}\n'
)


@pytest.mark.slow
def test_a_name_a_go_test_calls_that_is_missing_leads_to_its_file_and_its_subjects_uses(
    tmp_path: Path,
) -> None:
    """`go test` prints the test file relative to its package's folder: the lead finds it in
    the module, shows the end of the file it tests and the uses of `challengeKey`."""
    files = {"ws/keys.go": KEYS_GO, "ws/server.go": SERVER_GO, "ws/keys_test.go": KEYS_TEST}
    repo, env = go_module(tmp_path, files)
    done = go_test(repo, env)
    assert "undefined: isValidChallengeKey" in done.stdout + done.stderr
    found = leads.spans(repo, done.stdout + done.stderr)
    assert [(s.path, s.start, s.focus) for s in found] == [
        ("ws/keys.go", 11, (13,)),  # the end of keys.go, where a new function goes
        ("ws/keys.go", 3, (3, 4)),  # computeAccept's challengeKey
        ("ws/server.go", 5, (6, 7)),  # Upgrade's challengeKey
    ]


PARSE_GO = (
    'package num\n\nimport "strings"\n\nfunc Parse(s string) int {\n'
    '\tif strings.HasSuffix(s, ".") {\n\t\treturn 0\n\t}\n\treturn len(s)\n}\n'
)
PARSE_TEST = (
    'package num\n\nimport "testing"\n\nfunc TestParse(t *testing.T) {\n'
    "\tf := func(s string, want int) {\n\t\tt.Helper()\n\t\tif got := Parse(s); got != want {\n"
    '\t\t\tt.Errorf("unexpected number parsed from %q; got %d; want %d", s, got, want)\n'
    '\t\t}\n\t}\n\tf("12.", 0)\n\tf("7", 1)\n\tf("12.", 3)\n}\n\n'
    'func TestOther(t *testing.T) {\n\tif Parse("12.") == 1 {\n\t\tt.Fatal()\n\t}\n}\n'
)


@pytest.mark.slow
def test_an_input_a_failing_go_test_quotes_leads_to_its_other_uses_in_the_test_file(
    tmp_path: Path,
) -> None:
    """A changed behaviour changes the assertions that encode the old one: the lines of the
    test file using the quoted input, the reported one left to the snippets."""
    repo, env = go_module(tmp_path, {"num/parse.go": PARSE_GO, "num/parse_test.go": PARSE_TEST})
    done = go_test(repo, env)
    assert 'parse_test.go:14: unexpected number parsed from "12."' in done.stdout
    found = leads.spans(repo, done.stdout)
    assert [(s.path, s.name, s.focus) for s in found] == [
        ("num/parse_test.go", "TestParse", (12,)),  # f("12.", 0)
        ("num/parse_test.go", "TestOther", (18,)),
    ]
