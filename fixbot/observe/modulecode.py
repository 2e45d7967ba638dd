"""The module code each of the work tree's files ran, as the import system ran it, for both of
fixbot's Python observers: the unittest observer's recorder (`unittest_compiled._recorder`,
which holds a test's assert methods to it) and the pytest plugin's (`recorder`), each streaming
the files it names once per process as its run ends (`{"k": "imported", "f": [...]}`,
`imported`), read into `Observation.imported` (`fixbot.observe.stream`).

Copied beside the observers (`fixbot.observe.channel`'s `PARTS`, as `<module>_modulecode`) and
loaded with them, inside the project's own Python (3.8 or later), before any conftest, test
module or code under test is imported; it imports the standard library alone and nothing of
fixbot's. The import system runs a module's code through `exec`, which raises the `exec`
audit event (PEP 578) with the code object: `kept` keeps, for each file under the roots, the
first module code `exec` ran under its name (a second, other one makes it False: neither is the
file's, `unittest_compiled._compiled`). pytest's assertion rewriting compiles a test module
itself and runs it with `exec` under the test file's name (`_pytest.assertion.rewrite`): it
counts as the file's import, as any other module's does.

Limits: a file whose module code runs through no `exec` (a script run as `__main__`) is not
named; a file reached through a link is named as the import system named it, which the root,
real, may not begin (a work tree under a linked folder: its files unnamed, the record then
names fewer, never more); the record is streamed as the run ends, so a process ended before
(`os._exit`) streams none, and its stream has no `end` either (`observer-cut-short`).
"""

from __future__ import annotations

from types import CodeType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXEC = "exec"  # the audit event `exec` raises, with the code object it runs
MODULE = "<module>"  # the name of a module's code object
MAX_IMPORTED = 2000  # files named in one process's `imported` record, at most


def kept(
    args: Any,
    codes: dict[str, Any],
    roots: tuple[str, ...],
    _type: Any = type,
    _code: Any = CodeType,
    _str: Any = str,
    _module: str = MODULE,
) -> None:
    """Keep in `codes` (file to its module code; False once a second, other module code ran
    under its name) the module code of the `exec` audit event's `args` whose file begins with
    one of `roots` (folders, each with a trailing separator). Runs none of the project's code:
    exact types, a `str`'s own `startswith`."""
    if not args or _type(args[0]) is not _code:
        return
    code = args[0]
    file = code.co_filename
    if code.co_name != _module or _type(file) is not _str or not file.startswith(roots):
        return
    # a second, other module code under the file's name: neither is the file's
    codes[file] = codes.get(file, code) is code and code


def imported(
    codes: dict[str, Any], root: str, _len: Any = len, _most: int = MAX_IMPORTED
) -> list[str]:
    """The files of `codes` (`kept`'s) under `root` (a folder, with a trailing separator),
    relative to it, sorted, `MAX_IMPORTED` at most: the work tree's files this process
    imported."""
    found = sorted(file[_len(root) :] for file in codes if file.startswith(root))
    return found[:_most]


def recorder(root: str) -> tuple[Any, Any]:
    """(`record(args)`, `files()`): `record` keeps, from an `exec` audit event's `args`, the
    module code of each file under `root` (the work tree's root, real, with a trailing
    separator) that `exec` runs (`kept`); `files()` names those files relative to `root`
    (`imported`). The pytest plugin's, handed to its audit hook (`reach.install`'s
    `executed`), added at its load and never removed (an audit hook cannot be)."""
    codes: dict[str, Any] = {}

    def record(
        args: tuple[Any, ...],
        _codes: dict[str, Any] = codes,
        _roots: tuple[str, ...] = (root,),
        _kept: Any = kept,
    ) -> None:
        _kept(args, _codes, _roots)

    def files(
        _codes: dict[str, Any] = codes, _root: str = root, _imported: Any = imported
    ) -> list[str]:
        return _imported(_codes, _root)  # type: ignore[no-any-return]

    return record, files
