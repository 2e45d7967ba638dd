"""Round 40's pytest test support reached otherwise: `fixbot.run.integrity.helpers` given
a failing pytest test's own file finds the helper base a package re-exports, the modules a
`pytest_plugins` names, and a module of data only the tests import; a module of the code, or
one the code imports too, stays the code's; round 41's: the plugins pytest loads by `-p` from
every place its options come from, and a module of functions whose names only the tests'
collection uses. Real git repositories; no runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.run import integrity, supportfiles
from fixbot.tamper.imports import imported_modules, plugins_named
from tests.fakes.repo import git, make_repo

APP = "def add(a, b):\n    return a - b\n"
BASE = (
    "class Checks:\n    def assert_sum(self, total, *terms):\n        assert total == sum(terms)\n"
)


def _helpers(
    tmp_path: Path,
    files: dict[str, str],
    failing: str = "test_app.py",
    check: supportfiles.Check | None = None,
) -> frozenset[str]:
    repo = make_repo(tmp_path / "repo", files)
    return integrity.helpers(repo, git(repo, "rev-parse", "HEAD"), [failing], (), check)


def test_a_helper_base_a_package_re_exports_is_the_tests(tmp_path: Path) -> None:
    """`from support import Checks`, support/__init__.py re-exporting it from support/base.py:
    followed through the package (`_definition`), both files are the tests'."""
    files = {
        "app.py": APP,
        "support/__init__.py": "from support.base import Checks  # noqa: F401\n",
        "support/base.py": BASE,
        "test_app.py": (
            "from app import add\nfrom support import Checks\n\n\nclass TestAdd(Checks):\n"
            "    def test_add(self):\n        self.assert_sum(add(2, 2), 2, 2)\n"
        ),
    }
    assert _helpers(tmp_path, files) == {"support/base.py", "support/__init__.py"}


def test_a_code_class_a_package_re_exports_beside_test_like_classes_stays_the_codes(
    tmp_path: Path,
) -> None:
    """pyparsing 3.0.0's shape (a false alarm of the bench's held-out oracle): the tests import
    `Element` and `Word` through the package, and `Element` (the code under test) calls a method
    of `self` whose `fail*` name reads as unittest's (its `failAction`) and another class of
    the module defines it: the module stays the code's; the helper base re-exported beside it is
    still followed."""
    core = (
        "class Element:\n    def parse(self, text):\n        return self.failAction(text)\n\n"
        "    def failAction(self, text):\n        return text\n\n\n"
        "class Word(Element):\n    def __init__(self, chars):\n        self.chars = chars\n"
    )
    files = {
        "pkg/__init__.py": "from pkg.core import Word  # noqa: F401\n",
        "pkg/core.py": core,
        "support/__init__.py": "from support.base import Checks  # noqa: F401\n",
        "support/base.py": BASE,
        "test_app.py": (
            "from pkg import Element, Word\nfrom support import Checks\n\n\n"
            "class TestWord(Checks):\n"
            "    def test_word(self):\n        self.assert_sum(len(Word('ab').chars), 2)\n"
        ),
    }
    assert _helpers(tmp_path, files) == {"support/base.py", "support/__init__.py"}


def test_the_modules_pytest_plugins_names_are_the_tests(tmp_path: Path) -> None:
    """The failing test module's `pytest_plugins` (a string: no import), its folder's
    conftest.py's, and what a module so named names in turn; the code's app.py is none."""
    fixture = "import pytest\n\n\n@pytest.fixture\ndef check():\n    return print\n"
    files = {
        "app.py": APP,
        "checking.py": 'pytest_plugins = ("more.deeper",)\n' + fixture,
        "more/__init__.py": "",
        "more/deeper.py": fixture,
        "tests/conftest.py": 'pytest_plugins: list[str] = ["plugs"]\n',
        "plugs.py": fixture,
        "unnamed.py": fixture,
        "tests/test_app.py": (
            'pytest_plugins = ["checking"]\nfrom app import add\n\n\ndef test_add(check):\n'
            "    check(add(2, 2), 4)\n"
        ),
    }
    found = _helpers(tmp_path, files, "tests/test_app.py")
    assert found == {"checking.py", "more/deeper.py", "plugs.py"}


def test_a_data_module_only_the_tests_import_is_the_tests(tmp_path: Path) -> None:
    """cases.py (assignments alone) whose CASES the failing test parametrizes over is the
    tests'; offsets.py, of data alone too but imported by app.py, and consts.py, imported by
    app.py inside a function, stay the code's, as do app.py (functions) and a package's
    `__init__.py`."""
    files = {
        "app.py": (
            "from offsets import OFFSET\n\n\ndef add(a, b):\n    from pkg import consts\n"
            "    return a - b + OFFSET + consts.ZERO\n"
        ),
        "cases.py": '"""Cases."""\nCASES = [(2, 2, 4), (0, 0, 0)]\n',
        "offsets.py": "OFFSET = 0\n",
        "pkg/__init__.py": "LIMIT = 3\n",
        "pkg/consts.py": "ZERO = 0\n",
        "test_app.py": (
            "import pytest\n\nimport cases\nfrom app import add\nfrom offsets import OFFSET\n"
            "from pkg import LIMIT\nfrom pkg.consts import ZERO\n\n\n"
            '@pytest.mark.parametrize(("a", "b", "want"), cases.CASES)\n'
            "def test_add(a, b, want):\n    assert add(a, b) == want + OFFSET + ZERO < LIMIT\n"
        ),
    }
    assert _helpers(tmp_path, files) == {"cases.py"}


def test_what_pytest_plugins_and_import_statements_name() -> None:
    """`plugins_named`: a top-level string, list or tuple (annotated or not), no computed
    value; `imported_modules`: every import statement's module, a function's too, a `from`
    import's names as possible submodules."""
    assert plugins_named('pytest_plugins = ["a", "b.c"]\n') == ["a", "b.c"]
    assert plugins_named('pytest_plugins: tuple[str, ...] = ("a",)\n') == ["a"]
    assert plugins_named('pytest_plugins = "a"\n') == ["a"]
    assert plugins_named("pytest_plugins = names()\n") == []
    assert plugins_named('def f():\n    pytest_plugins = ["a"]\n') == []
    text = "import a.b\nfrom . import c\n\n\ndef f():\n    from .d import e\n"
    assert imported_modules(text) == {(0, "a.b"), (1, ""), (1, "c"), (1, "d"), (1, "d.e")}


FIXTURE = "import pytest\n\n\n@pytest.fixture\ndef check():\n    return print\n"
FIXTURE_TEST = "from app import add\n\n\ndef test_add(check):\n    check(add(2, 2), 4)\n"


@pytest.mark.parametrize(
    ("config", "check", "found"),
    [
        pytest.param(
            {"pytest.ini": "[pytest]\naddopts = -p checking\n"},
            "pytest",
            {"checking.py"},
            id="pytest.ini",
        ),
        pytest.param(
            {"tox.ini": "[pytest]\naddopts = -x -pchecking\n"},
            "pytest",
            {"checking.py"},
            id="tox.ini -pNAME",
        ),
        pytest.param(
            {"setup.cfg": "[tool:pytest]\naddopts =\n    -p plugs.deep\n"},
            "pytest",
            {"plugs/deep.py"},
            id="setup.cfg dotted",
        ),
        pytest.param(
            {"pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-p checking"\n'},
            "pytest",
            {"checking.py"},
            id="pyproject ini_options",
        ),
        pytest.param(
            {"pyproject.toml": '[tool.pytest]\naddopts = ["-p", "checking"]\n'},
            "pytest",
            {"checking.py"},
            id="pyproject pytest 9",
        ),
        pytest.param(
            {"pytest.ini": "[pytest]\npythonpath = sub\naddopts = -p inner\n"},
            "pytest",
            {"sub/inner.py"},
            id="pythonpath",
        ),
        pytest.param(
            {},
            'PYTEST_ADDOPTS="-x -p checking" pytest',
            {"checking.py"},
            id="PYTEST_ADDOPTS assigned",
        ),
        pytest.param(
            {},
            "PYTEST_PLUGINS=plugs.deep,checking pytest",
            {"checking.py", "plugs/deep.py"},
            id="PYTEST_PLUGINS",
        ),
        pytest.param(
            {},
            "python -m pytest -p checking -p no:cacheprovider",
            {"checking.py"},
            id="the command's words",
        ),
        pytest.param(
            {"ci/p.ini": "[pytest]\naddopts = -p checking\n"},
            "pytest -c ci/p.ini",
            {"checking.py"},
            id="-c file",
        ),
        pytest.param(
            {"pytest.ini": "[pytest]\naddopts = -p checking\n"},
            "pytest -p no:checking",
            set(),
            id="no: turns it off",
        ),
        pytest.param(
            {"pytest.ini": "[pytest]\naddopts = -p=checking\n"},
            "pytest",
            set(),
            id="-p=NAME names =NAME",
        ),
        pytest.param(
            {"pytest.ini": "[pytest]\naddopts = -p xdist\n"},
            "pytest",
            set(),
            id="an installed plugin",
        ),
        pytest.param({}, "python -m unittest discover -p checking", set(), id="unittest's -p"),
    ],
)
def test_the_plugins_pytest_loads_by_p_are_the_tests(
    tmp_path: Path, config: dict[str, str], check: str, found: set[str]
) -> None:
    """Round 41's [plugin by -p]: the modules `-p` names in every place pytest reads options
    from, and PYTEST_PLUGINS', resolved to the work tree's files (and what their own
    `pytest_plugins` names: plugs/deep.py's `more`), are the tests'; the code's app.py and a
    fixture module nothing names are not."""
    files = {
        "app.py": APP,
        "checking.py": FIXTURE,
        "plugs/__init__.py": "",
        "plugs/deep.py": 'pytest_plugins = ["more"]\n' + FIXTURE,
        "more.py": FIXTURE,
        "sub/inner.py": FIXTURE,
        "unnamed.py": FIXTURE,
        "test_app.py": FIXTURE_TEST,
        **config,
    }
    deep = {"more.py"} if "plugs/deep.py" in found else set()
    assert _helpers(tmp_path, files, check=supportfiles.Check(check)) == found | deep


def test_the_check_environments_pytest_addopts_names_plugins(tmp_path: Path) -> None:
    """PYTEST_ADDOPTS in the check's environment, and a check run in a sub-folder whose own
    pytest.ini names the plugin beside it (resolved from that folder)."""
    files = {"app.py": APP, "checking.py": FIXTURE, "test_app.py": FIXTURE_TEST}
    env = supportfiles.Check("pytest", ".", {"PYTEST_ADDOPTS": "-p checking"})
    assert _helpers(tmp_path / "env", files, check=env) == {"checking.py"}
    nested = {
        "pkg/app.py": APP,
        "pkg/pytest.ini": "[pytest]\naddopts = -p local\n",
        "pkg/local.py": FIXTURE,
        "pkg/test_app.py": FIXTURE_TEST,
    }
    check = supportfiles.Check("pytest", "pkg")
    assert _helpers(tmp_path / "nested", nested, "pkg/test_app.py", check) == {"pkg/local.py"}


def test_what_p_names_as_pytest_reads_it() -> None:
    """pytest 9.2's `consider_preparse`: `-p NAME`, `-pNAME`, `-p=NAME` as `=NAME`; `no:`
    removes a name and its `pytest_` form; long options are not `-p`."""
    words = ["-p", "a", "-pb.c", "-p=d", "--pdb", "-p", "pytest_e", "-p", "no:e", "-p", "f"]
    assert supportfiles.named_by_p(words) == ["a", "b.c", "=d", "f"]
    assert supportfiles.named_by_p(["-p"]) == []


CASES_FUNCTION_TEST = (
    "import pytest\n\nfrom app import add\nfrom cases import cases\n\n\n"
    '@pytest.mark.parametrize(("a", "b", "want"), cases())\n'
    "def test_add(a, b, want):\n    assert add(a, b) == want\n"
)


def test_a_module_only_the_tests_collection_uses_is_the_tests(tmp_path: Path) -> None:
    """Round 41's [expected values made by a function]: cases.py's `cases()`, called in the
    parametrize decorator and imported by no code file, is the tests' though it holds a
    function; app.py, which only the tests import too, is called in the test's body: the
    code under test, not the tests' (the brief's rule without the body condition would pin
    it, and undo every honest fix of a module only its tests import)."""
    files = {
        "app.py": APP,
        "cases.py": "def cases():\n    return [(2, 2, 4), (0, 0, 0)]\n",
        "test_app.py": CASES_FUNCTION_TEST,
    }
    assert _helpers(tmp_path, files) == {"cases.py"}


def test_a_collection_module_the_code_imports_or_a_body_calls_stays_the_codes(
    tmp_path: Path,
) -> None:
    """cases.py imported by app.py too (the code's), and expected.py whose function a test's
    body calls (read as code under test: the stated limit) are not the tests'."""
    files = {
        "app.py": "import cases  # noqa: F401\n\n\n" + APP,
        "cases.py": "def cases():\n    return [(2, 2, 4)]\n",
        "expected.py": "def want(a, b):\n    return a + b\n",
        "test_app.py": CASES_FUNCTION_TEST.replace(
            "from cases", "from expected import want\nfrom cases"
        )
        + "\n\ndef test_want():\n    assert add(1, 1) == want(1, 1)\n",
    }
    assert _helpers(tmp_path, files) == set()


def test_what_a_function_body_refers_to() -> None:
    """`in_bodies`: a test's, a method's and a fixture's body; not a decorator's arguments nor
    a module's or a class's top level; nothing where the text does not parse."""
    text = (
        "import pytest\nimport m\nfrom a import b, c, d\n\nX = d()\n\n\n"
        "@pytest.mark.parametrize('x', b())\ndef test_x(x):\n    assert c(x)\n\n\n"
        "class TestY:\n    Y = m.Y\n\n    def test_y(self):\n        assert m.f()\n"
    )
    assert supportfiles.in_bodies(text) == {(0, "a", "c"), (0, "m", "f")}
    assert supportfiles.in_bodies("def (:\n") == frozenset()
