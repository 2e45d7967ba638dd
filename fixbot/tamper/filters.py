"""pytest's warning filters: the one change to a test configuration that cannot hide a failing
test, told apart from every other.

A project that turns warnings into errors (`filterwarnings = ["error"]`) fails its tests when a
dependency starts to warn: python-humanize's tests failed under Python 3.12 because dateutil
2.8.2 calls `datetime.utcfromtimestamp()` when it is imported, and the upstream fix was one
configuration line, `"ignore:datetime.datetime.utcfromtimestamp:DeprecationWarning:dateutil.tz.tz"`
(https://github.com/python-humanize/humanize/commit/2b37be520b6a8b3cfd4aab15b12870a30eedc7d1).
Such an entry silences one warning where a dependency's module raises it; a test that failed on
an assertion fails still, and a test the warning stopped now runs its assertions to the end. So
the change is harmless (`harmless`) when, in a pytest configuration file, nothing but the
`filterwarnings` entries differ and each entry added is `error` (stricter) or an `ignore` scoped
to a module that is none of the project's own, and each entry removed is an `ignore`. Any other
difference (addopts, markers, testpaths, an `ignore` for every module or for the project's code,
an `error` removed) is a configuration change the tampering rules judge as before.

The filter syntax is pytest's `action:message:category:module:lineno`, at most five fields
(https://docs.pytest.org/en/stable/how-to/capture-warnings.html#controlling-warnings); the action
names and the module being a regular expression matched at the start of the warning's module
name are Python's (https://docs.python.org/3/library/warnings.html#the-warnings-filter).
"""

from __future__ import annotations

import configparser
import re
import tomllib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

ACTIONS = ("default", "error", "ignore", "always", "module", "once")
# The files pytest reads its configuration from and the section it reads in each (an ini file's
# section; pyproject's `[tool.pytest.ini_options]`, pytest 9's `[tool.pytest]` and the `[pytest]`
# table of `pytest.toml` are read below).
INI_SECTIONS = {"pytest.ini": "pytest", ".pytest.ini": "pytest", "tox.ini": "pytest"}
INI_SECTIONS |= {"setup.cfg": "tool:pytest"}


@dataclass(frozen=True)
class Filter:
    """One `filterwarnings` entry: Python's action name and the message, category and module
    fields as written ("" where left out)."""

    action: str
    message: str
    category: str
    module: str


def parse(entry: str) -> Filter | None:
    """The entry as pytest reads it, None when pytest would refuse it (more than five fields,
    an unknown action)."""
    parts = [part.strip() for part in entry.split(":")]
    if len(parts) > 5:
        return None
    parts += [""] * (5 - len(parts))
    action = _action(parts[0])
    return None if action is None else Filter(action, parts[1], parts[2], parts[3])


def _action(word: str) -> str | None:
    """Python's action for `word`: "" is `default`, `all` is `always`, else the first action
    it begins (`warnings._getaction`: "e" and "err" are `error`)."""
    if not word:
        return "default"
    if word == "all":
        return "always"
    return next((action for action in ACTIONS if action.startswith(word)), None)


def configuration(path: str, text: str) -> tuple[object, list[str]] | None:
    """What the pytest configuration file `path` says besides its warning filters, and the
    filters (entries in order); None when `path` is not one or cannot be read."""
    name = PurePosixPath(path).name.lower()
    if name == "pyproject.toml":
        return _toml(text, ("tool", "pytest"))
    if name in ("pytest.toml", ".pytest.toml"):
        return _toml(text, ("pytest",))
    section = INI_SECTIONS.get(name)
    return None if section is None else _ini(text, section)


def _toml(text: str, where: tuple[str, ...]) -> tuple[object, list[str]] | None:
    """A TOML configuration: everything but the filters of the pytest table at `where` (and of
    its `ini_options`), and those filters."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    pytest: object = data
    for key in where:
        pytest = pytest.get(key) if isinstance(pytest, dict) else None
    if not isinstance(pytest, dict):
        return data, []
    found: list[str] = []
    for table in (pytest, pytest.get("ini_options")):
        entries = _pop_filters(table)
        if entries is None:
            return None
        found += entries
    return data, found


def _pop_filters(table: object) -> list[str] | None:
    """The non-blank `filterwarnings` entries of a TOML table, taken out of it ([] when it has
    none or is no table); None when they are neither a string nor a list of strings."""
    if not isinstance(table, dict) or "filterwarnings" not in table:
        return []
    entries = table.pop("filterwarnings")
    if isinstance(entries, str):
        entries = entries.splitlines()
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        return None
    return [e.strip() for e in entries if e.strip()]


def _ini(text: str, section: str) -> tuple[object, list[str]] | None:
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    rest = {name: dict(parser.items(name)) for name in parser.sections()}
    value = rest.get(section, {}).pop("filterwarnings", "")
    entries = [line.strip() for line in value.splitlines()]
    return rest, [e for e in entries if e and not e.startswith("#")]


def _outside(module: str, project: Iterable[str]) -> bool:
    """The module field names code that is none of the project's: not empty (every module), a
    valid regular expression, and matching none of the project's module names (Python matches
    it at the start of the warning's module name)."""
    if not module:
        return False
    try:
        pattern = re.compile(module)
    except re.error:
        return False
    return not any(pattern.match(name) for name in project)


def harmless(path: str, old: str, new: str, project: Iterable[str] = ()) -> bool:
    """True when the change of the pytest configuration file `path` from `old` to `new` changes
    only warning filters, and only so (see the module docstring): each entry added is `error`
    or an `ignore` for a module outside `project` (the project's module names, every dotted
    suffix: `src.pkg.mod`, `pkg.mod`, `mod`), each entry removed an `ignore`, the entries kept
    in their order. False for any other file or difference."""
    before, after = configuration(path, old), configuration(path, new)
    if before is None or after is None or before[0] != after[0]:
        return False
    was, now = Counter(before[1]), Counter(after[1])
    added, removed = list((now - was).elements()), list((was - now).elements())
    if not _same_order(before[1], after[1], was & now):
        return False
    names = list(project)
    return all(_safe_addition(e, names) for e in added) and all(map(_is_ignore, removed))


def _same_order(before: list[str], after: list[str], kept: Counter[str]) -> bool:
    """The entries in both lists stand in the same order in each."""
    return [e for e in before if e in kept] == [e for e in after if e in kept]


def _safe_addition(entry: str, project: list[str]) -> bool:
    """An added entry that cannot hide a failing test: `error`, or an `ignore` scoped to a
    module outside `project`."""
    rule = parse(entry)
    if rule is None:
        return False
    return rule.action == "error" or (rule.action == "ignore" and _outside(rule.module, project))


def _is_ignore(entry: str) -> bool:
    rule = parse(entry)
    return rule is not None and rule.action == "ignore"


def ignores_added(path: str, old: str, new: str) -> bool:
    """The change adds an `ignore` entry: with it a test that the warning stopped at the start
    runs on, so against the start's configuration any test may fail."""
    before, after = configuration(path, old), configuration(path, new)
    if before is None or after is None:
        return False
    added = Counter(after[1]) - Counter(before[1])
    return any(map(_is_ignore, added))


def module_names(paths: Iterable[str]) -> frozenset[str]:
    """The dotted names the project's Python files can be imported by: every suffix of each
    file's module path (`src/pkg/mod.py` -> `src.pkg.mod`, `pkg.mod`, `mod`; a package's
    `__init__.py` is the folder)."""
    found: set[str] = set()
    for path in paths:
        pure = PurePosixPath(path)
        if pure.suffix != ".py":
            continue
        parts = list(pure.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found |= {".".join(parts[i:]) for i in range(len(parts))}
    return frozenset(found - {""})
