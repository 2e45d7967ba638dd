"""Round 40's pytest test support reached otherwise: `fixbot.run.integrity.helpers` given
a failing pytest test's own file finds the helper base a package re-exports, the modules a
`pytest_plugins` names, and a module of data only the tests import; a module of the code, or
one the code imports too, stays the code's. Real git repositories; no runner."""

from __future__ import annotations

from pathlib import Path

from fixbot.run import integrity
from fixbot.tamper.imports import imported_modules, plugins_named
from tests.fakes.repo import git, make_repo

APP = "def add(a, b):\n    return a - b\n"
BASE = (
    "class Checks:\n    def assert_sum(self, total, *terms):\n        assert total == sum(terms)\n"
)


def _helpers(tmp_path: Path, files: dict[str, str], failing: str = "test_app.py") -> frozenset[str]:
    repo = make_repo(tmp_path / "repo", files)
    return integrity.helpers(repo, git(repo, "rev-parse", "HEAD"), [failing])


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
