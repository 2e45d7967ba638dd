"""pytest's warning filters: the change that cannot hide a failing test is told apart from every
other change of the configuration, in each file pytest reads it from."""

from __future__ import annotations

import pytest

from fixbot.agent.guard import tampering
from fixbot.tamper.changes import Change, lets_tests_run_on, of_the_tests
from fixbot.tamper.cheats import detect
from fixbot.tamper.filters import Filter, harmless, ignores_added, module_names, parse

# python-humanize's pyproject.toml before and after its commit 2b37be5 (the real fix, cut to
# the pytest table and one other: the shape is what matters)
BEFORE = """\
[project]
name = "humanize"

[tool.pytest.ini_options]
addopts = "--color=yes"
filterwarnings = [
    "error",
]
"""
DEPENDENCY = "ignore:datetime.datetime.utcfromtimestamp:DeprecationWarning:dateutil.tz.tz"
AFTER = BEFORE.replace('    "error",\n', f'    "error",\n    # a comment\n    "{DEPENDENCY}",\n')
PROJECT = module_names(["src/humanize/__init__.py", "src/humanize/time.py", "tests/test_time.py"])


def entries(*lines: str) -> str:
    body = "".join(f'    "{line}",\n' for line in lines)
    head = '[project]\nname = "humanize"\n\n[tool.pytest.ini_options]\naddopts = "--color=yes"\n'
    return f"{head}filterwarnings = [\n{body}]\n"


def test_the_real_humanize_fix_is_harmless_and_lets_tests_run_on() -> None:
    assert harmless("pyproject.toml", BEFORE, AFTER, PROJECT)
    assert ignores_added("pyproject.toml", BEFORE, AFTER)
    change = Change("pyproject.toml", BEFORE, AFTER)
    assert detect([change], modules=PROJECT) == []
    assert of_the_tests(change)  # still verified against the start's configuration
    assert lets_tests_run_on(change, PROJECT)


def test_making_warnings_errors_is_harmless_but_lets_no_test_run_on() -> None:
    start = entries(DEPENDENCY)
    stricter = entries(DEPENDENCY, "error::UserWarning")
    assert harmless("pyproject.toml", start, stricter, PROJECT)
    assert not lets_tests_run_on(Change("pyproject.toml", start, stricter), PROJECT)


@pytest.mark.parametrize(
    ("new", "why"),
    [
        (entries("error", "ignore"), "every warning ignored"),
        (entries("error", "ignore::DeprecationWarning"), "a category ignored in every module"),
        (entries("error", "ignore:::humanize.time"), "the project's own module"),
        (entries("error", "ignore:::hum"), "a regex matching the project's module"),
        (entries("error", "ignore:::src"), "the project's folder"),
        (entries("error", "ignore:::(unclosed"), "a module that is no regular expression"),
        (entries("error", "default::DeprecationWarning:dateutil"), "a warning shown, not raised"),
        (entries("error", "always"), "every warning shown, not raised"),
        (entries("error", "bogus::Warning"), "an action pytest refuses"),
        (entries("error", "a:b:c:d:e:f"), "more fields than pytest reads"),
        (entries(), "the error entry removed"),
        (BEFORE.replace('"--color=yes"', '"-p no:warnings"'), "addopts changed with it"),
        (AFTER.replace("[project]", "[tool.coverage.run]\nbranch = true\n\n[project]"), "coverage"),
    ],
)
def test_every_other_change_stays_a_config_change(new: str, why: str) -> None:
    assert not harmless("pyproject.toml", BEFORE, new, PROJECT), why
    assert [c.rule for c in detect([Change("pyproject.toml", BEFORE, new)], modules=PROJECT)] == [
        "config-changed"
    ], why


def test_the_kept_entries_keep_their_order() -> None:
    start = entries("error", DEPENDENCY)
    # an entry added after the kept ones; then the kept ones swapped: the later one wins in
    # pytest, so "error" after the ignore would undo it
    assert harmless("pyproject.toml", start, entries("error", DEPENDENCY, "error::UserWarning"))
    assert not harmless(
        "pyproject.toml",
        entries("ignore:::dateutil", "error"),
        entries("error", "ignore:::dateutil"),
    )


def test_an_ignore_removed_is_stricter() -> None:
    assert harmless("pyproject.toml", AFTER, BEFORE, PROJECT)


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        (
            "pytest.ini",
            "[pytest]\nfilterwarnings =\n    error\n",
            "[pytest]\nfilterwarnings =\n    error\n    ignore:::dateutil\n",
        ),
        (
            ".pytest.ini",
            "[pytest]\nfilterwarnings = error\n",
            "[pytest]\nfilterwarnings = error\n    ignore:::dateutil\n",
        ),
        (
            "tox.ini",
            "[tox]\nenv_list = py\n\n[pytest]\nfilterwarnings = error\n",
            "[tox]\nenv_list = py\n\n[pytest]\nfilterwarnings = error\n    # dateutil 2.8.2\n"
            "    ignore:::dateutil\n",
        ),
        (
            "pytest.toml",
            '[pytest]\nfilterwarnings = ["error"]\n',
            '[pytest]\nfilterwarnings = ["error", "ignore:::dateutil"]\n',
        ),
        (
            "setup.cfg",
            "[metadata]\nname = x\n\n[tool:pytest]\nfilterwarnings = error\n",
            "[metadata]\nname = x\n\n[tool:pytest]\nfilterwarnings = error\n"
            "    ignore:::dateutil\n",
        ),
    ],
)
def test_the_ini_files_pytest_reads(path: str, before: str, after: str) -> None:
    assert harmless(path, before, after, PROJECT)
    assert detect([Change(path, before, after)], modules=PROJECT) == []
    deselect = after.replace(
        "filterwarnings", "addopts = --deselect tests/test_a.py::t\nfilterwarnings"
    )
    assert not harmless(path, before, deselect, PROJECT)
    assert [c.rule for c in detect([Change(path, before, deselect)])] == ["config-changed"]


def test_a_file_pytest_does_not_read_is_never_harmless() -> None:
    assert not harmless("ruff.toml", "line-length = 88\n", "line-length = 100\n")
    assert not harmless("pyproject.toml", "not toml [", AFTER)


def test_a_filter_as_pytest_reads_it() -> None:
    assert parse(DEPENDENCY) == Filter(
        "ignore", "datetime.datetime.utcfromtimestamp", "DeprecationWarning", "dateutil.tz.tz"
    )
    assert parse("e") == Filter("error", "", "", "")
    assert parse("::UserWarning") == Filter("default", "", "UserWarning", "")
    assert parse("nonsense") is None


def test_the_project_modules_are_every_dotted_suffix() -> None:
    assert {"src.humanize", "humanize", "humanize.time", "time", "tests.test_time"} <= PROJECT
    assert "src.humanize.__init__" not in PROJECT and "" not in PROJECT


def test_the_guard_lets_the_dependency_filter_through_and_refuses_the_rest() -> None:
    assert tampering("pyproject.toml", BEFORE, AFTER) is None
    refused = tampering("pyproject.toml", BEFORE, entries("error", "ignore::DeprecationWarning"))
    assert refused is not None and "configuration" in refused


def test_the_guard_refuses_an_ignore_of_the_projects_own_module_when_it_knows_them() -> None:
    own = entries("error", "ignore:::humanize.time")
    refused = tampering("pyproject.toml", BEFORE, own, modules=PROJECT)
    assert refused is not None and "configuration" in refused
    # without the project's names the guard lets it pass; the final-diff detector, which reads
    # them from the verified tree, refuses it (test_every_other_change_stays_a_config_change)
    assert tampering("pyproject.toml", BEFORE, own) is None
