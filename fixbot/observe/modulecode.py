"""The module code each of the work tree's files ran, as the import system ran it, for both of
fixbot's Python observers: the unittest observer's recorder (`unittest_compiled._recorder`,
which holds a test's assert methods to it) and the pytest plugin's (`recorder`), each streaming
the files it names once per process as its run ends (`{"k": "imported", "f": [...]}`,
`imported`), read into `Observation.imported` (`fixbot.observe.stream`).

Copied beside the observers (`fixbot.observe.channel`'s `PARTS`, as `<module>_modulecode`) and
loaded with them, inside the project's own Python (3.8 or later), before any conftest, test
module or code under test is imported; it imports the standard library and the observer's
`modulenames` part alone, nothing of fixbot's. The import system runs a module's code through
`exec`, which raises the `exec` audit event (PEP 578) with the code object: `kept` keeps, for
each file under the roots, the first module code `exec` ran under its name (a second, other one
makes it False: neither is the file's, `unittest_compiled._compiled`). The `imported` record is
`loaded`'s (round 41, pyname): a file counts as imported only where the import system itself
ran its module code (the `exec`'s Python caller is importlib's `_call_with_frames_removed`
under `_LoaderBasics.exec_module` of a plain `SourceFileLoader`, or pytest's
`AssertionRewritingHook.exec_module`, which compiles a test module itself and runs it with
`exec`; the namespaces that code is read through unchanged since load: `machinery`), not code
compiled under its name and run by `exec(compile(src, path, "exec"))`; and it is named only
where its names still hold at the record's time (`held`, `modulenames.unheld`).

Limits: a file whose module code runs through no `exec` (a script run as `__main__`) is not
named; a file reached through a link is named as the import system named it, which the root,
real, may not begin (a work tree under a linked folder: its files unnamed, the record then
names fewer, never more); the record is streamed as the run ends, so a process ended before
(`os._exit`) streams none, and its stream has no `end` either (`observer-cut-short`).
"""

from __future__ import annotations

import hashlib
import importlib
import io
import marshal
import sys
from _thread import get_ident
from importlib import _bootstrap, _bootstrap_external  # type: ignore[attr-defined]
from operator import is_
from types import CodeType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXEC = "exec"  # the audit event `exec` raises, with the code object it runs
COMPILE = "compile"  # the audit event `compile` raises, with (source, filename)
MODULE = "<module>"  # the name of a module's code object
MAX_IMPORTED = 2000  # files named in one process's `imported` record, at most
MAX_READ = 8 << 20  # bytes of a file read for its digest, at most (a larger one: `UNREAD`)
UNREAD = "-"  # the digest of a file that could not be read whole as its module code ran
# the import system's call of a module's code: `_LoaderBasics.exec_module` calls
# `_call_with_frames_removed(exec, code, module.__dict__)`
CALLS = _bootstrap._call_with_frames_removed.__code__  # type: ignore[attr-defined]
EXECS = _bootstrap_external._LoaderBasics.exec_module.__code__  # type: ignore[attr-defined]
LOADERS = (_bootstrap_external.SourceFileLoader,)  # the loaders of a work-tree file's source
# what a loader's instance may not hold of its own: the methods its code is read through
OVERRIDES = ("get_code", "get_data", "path_stats", "source_to_code", "exec_module", "name")


def _part(name: str, _name: str = __name__) -> Any:
    """The observer's part `name` (`modulenames`), copied beside this one (`<module>_<name>`,
    this being `<module>_modulecode`) and taken out of `sys.modules` as the observer's parts
    are, or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = _name.rpartition(".")
    if package:
        return importlib.import_module(f"{package}.{name}")
    named = module[: -len("modulecode")] + name
    try:
        return importlib.import_module(named)
    finally:
        sys.modules.pop(named, None)


NAMES = _part("modulenames")  # `unheld`: what a loaded module's names are bound to at the end


def machinery(extra: tuple[Any, ...] = ()) -> list[tuple[Any, Any, Any, bool]]:
    """The namespaces a module's code is read and run through, each as (namespace, its keys,
    their values, whether no key may be added) as they are now: the loader classes' own
    (`LOADERS`' MROs), importlib's `_bootstrap` and `_bootstrap_external`, `marshal` (a
    cached code read), `compile` and `exec` of `builtins`, and `extra`'s (pytest's assertion
    rewriter's module and class)."""
    spaces: list[Any] = [vars(k) for k in LOADERS[0].__mro__[:-1]]
    spaces += [vars(_bootstrap), vars(_bootstrap_external), vars(marshal), *map(vars, extra)]
    frozen = [(space, tuple(space), tuple(space.values()), True) for space in spaces]
    builtins = vars(sys.modules["builtins"])
    run = (builtins["compile"], builtins["exec"])
    return [*frozen, (builtins, ("compile", "exec"), run, False)]


def _unchanged(
    frozen: Any, _all: Any = all, _map: Any = map, _is: Any = is_, _len: Any = len
) -> bool:
    """Whether each namespace of `frozen` (`machinery`'s) still holds its values, by identity,
    and no more keys (a loader class's: a method set on a subclass of the one defining it)."""
    for space, keys, values, whole in frozen:
        if whole and _len(space) != _len(keys):
            return False
        if not _all(_map(_is, _map(space.get, keys), values)):
            return False
    return True


def _by_loader(
    frame: Any,
    _type: Any = type,
    _loaders: tuple[Any, ...] = LOADERS,
    _execs: Any = EXECS,
    _overrides: tuple[str, ...] = OVERRIDES,
    _namespace: Any = object.__getattribute__,
) -> Any:
    """(module object, module name) where `frame` (`_call_with_frames_removed`'s caller) is
    `_LoaderBasics.exec_module` of a loader of an exact type of `LOADERS` whose instance holds
    none of `OVERRIDES` but its `name`; else None."""
    if frame is None or frame.f_code is not _execs:
        return None
    space = frame.f_locals
    loader = space.get("self")
    if _type(loader) not in _loaders:
        return None
    own = _namespace(loader, "__dict__")
    for key in _overrides[:-1]:
        if key in own:
            return None
    return space.get("module"), own.get("name")


def _by_rewriter(frame: Any, held: tuple[Any, Any, Any], _type: Any = type) -> Any:
    """(module object, module name) where `frame` runs `held[0]` (pytest's
    `AssertionRewritingHook.exec_module`) of an exact `held[2]`; else None."""
    if held[0] is None or frame.f_code is not held[0]:
        return None
    space = frame.f_locals
    if _type(space.get("self")) is not held[2]:
        return None
    module = space.get("module")
    spec = NAMES.NAMESPACE(module).get("__spec__")
    return module, getattr(spec, "name", None)


def _module_file(
    args: Any,
    root: str,
    _type: Any = type,
    _code: Any = CodeType,
    _str: Any = str,
    _module: str = MODULE,
) -> Any:
    """The file under `root` whose module code the `exec` event's `args` runs; else None."""
    if not args or _type(args[0]) is not _code or args[0].co_name != _module:
        return None
    file = args[0].co_filename
    if _type(file) is not _str or not file.startswith(root):
        return None
    return file


def ran_digest(
    file: str,
    _open: Any = io.open,
    _sha: Any = hashlib.sha256,
    _len: Any = len,
    _most: int = MAX_READ,
) -> str:
    """The SHA-256 (hex) of `file`'s bytes as they are now, read as its module code runs (the
    `exec` event, `loaded`): the bytes the import system compiled that code from, where no
    `.pyc` is read (`sourced.py`); `UNREAD` where it cannot be read, or is over `MAX_READ`
    bytes. Read by `io.open` as captured at load, never the project's `open`."""
    try:
        with _open(file, "rb") as handle:
            data = handle.read(_most + 1)
    except OSError:
        return UNREAD
    return UNREAD if _len(data) > _most else _sha(data).hexdigest()  # type: ignore[no-any-return]


def compiled(
    args: Any,
    pending: dict[int, tuple[str, str]],
    root: str,
    _type: Any = type,
    _str: Any = str,
    _bytes: Any = bytes,
    _len: Any = len,
    _ident: Any = get_ident,
    _sha: Any = hashlib.sha256,
) -> None:
    """Keep in `pending` (thread to (file, SHA-256)) the digest of the source bytes a `compile`
    audit event's `args` ((source, filename)) compiles under a file of `root`, in the thread
    compiling them: the bytes a loader read (`source_to_code`; pytest's `ast.parse` of a test
    module), which no write of the file after that read changes (another thread's, another
    process's). Its `exec` in the same thread comes next (`loaded`). A source that is no
    `bytes` (an AST, a str) is passed over."""
    if _len(args) < 2 or _type(args[1]) is not _str or _type(args[0]) is not _bytes:
        return
    if args[1].startswith(root):
        pending[_ident()] = (args[1], _sha(args[0]).hexdigest())


def _ran(
    file: str,
    pending: dict[int, tuple[str, str]] | None,
    _digest: Any = ran_digest,
    _ident: Any = get_ident,
) -> str:
    """The digest `file`'s module code ran from: its bytes now (`ran_digest`), held to those
    this thread last compiled under its name (`compiled`, where it was `file`): two that
    differ are `UNREAD` (rewritten between the loader's read and the `exec`)."""
    digest = _digest(file)
    said = pending.pop(_ident(), None) if pending is not None else None
    if said is not None and said[0] == file and said[1] != digest:
        return UNREAD
    return digest  # type: ignore[no-any-return]


def loaded(
    args: Any,
    found: dict[str, tuple[Any, Any, str, str]],
    root: str,
    depth: int,
    held: tuple[Any, Any, Any],
    pending: dict[int, tuple[str, str]] | None = None,
    _getframe: Any = sys._getframe,
    _type: Any = type,
    _str: Any = str,
    _module_file: Any = _module_file,
    _calls: Any = CALLS,
    _by_loader: Any = _by_loader,
    _by_rewriter: Any = _by_rewriter,
    _unchanged: Any = _unchanged,
    _ran: Any = _ran,
) -> None:
    """Keep in `found` (file to (module code, module object, module name, the digest of the
    file's bytes as that code runs, `_ran` with `pending`, `compiled`'s: what fixbot holds to
    the bytes it put there, `fixbot.run.ranbytes`)) the module code of
    the `exec` audit event's `args` where the import system ran it for a file under `root`: the
    frame `depth` above this one (the Python caller of `exec`) is importlib's
    `_call_with_frames_removed` called by `_LoaderBasics.exec_module` of a plain source loader
    (`_by_loader`), or `held[0]` (the code of pytest's `AssertionRewritingHook.exec_module`,
    which calls `exec` itself; None outside pytest; `_by_rewriter`), with `held[1]`
    (`machinery`'s) unchanged since load. An `exec` of code compiled under a file's name
    (`exec(compile(src, path, "exec"))`) is none of these: not kept."""
    file = _module_file(args, root)
    if file is None:
        return
    try:
        frame = _getframe(depth)
    except ValueError:  # no Python caller that deep: a script's code run from C, no loader's
        return
    made = _by_loader(frame.f_back) if frame.f_code is _calls else _by_rewriter(frame, held)
    if made is not None and _type(made[1]) is _str and _unchanged(held[1]):
        digest = _ran(file, pending)
        before = found.get(file)
        if before is not None and before[3] != digest:
            digest = UNREAD  # run twice from other bytes: one of them was not the file's
        found[file] = (args[0], made[0], made[1], digest)


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
    relative to it, sorted, `MAX_IMPORTED` at most: the work tree's files module code ran
    under (the `imported` record is `held`'s since pyname)."""
    found = sorted(file[_len(root) :] for file in codes if file.startswith(root))
    return found[:_most]


def held(
    found: dict[str, tuple[Any, Any, str, str]],
    root: str,
    modules: dict[str, Any],
    _unheld: Any = NAMES.unheld,
    _len: Any = len,
    _most: int = MAX_IMPORTED,
) -> list[str]:
    """The files of `found` (`loaded`'s) relative to `root`, sorted, `MAX_IMPORTED` at most,
    whose names still hold (`modulenames.unheld`, against `modules`: the import system's
    `sys.modules`): the work tree's files this process imported as they were written."""
    by_name = {record[2]: record for record in found.values()}
    read: dict[int, Any] = {}  # each module code's `bindings`, read once (the codes kept alive)
    kept = [
        file[_len(root) :]
        for file, record in found.items()
        if not _unheld(file[_len(root) :], record, by_name, modules, read)
    ]
    return sorted(kept)[:_most]


def record_of(
    found: dict[str, tuple[Any, Any, str, str]],
    root: str,
    modules: dict[str, Any],
    _held: Any = held,
    _len: Any = len,
    _most: int = MAX_IMPORTED,
) -> dict[str, Any]:
    """The `imported` record's fields: `f`, the files `held` names, and `b`, each file of
    `found` (relative to `root`, `MAX_IMPORTED` at most) to the SHA-256 of its bytes as its
    module code ran (`ran_digest`; `UNREAD` where they were unread, or differed between two
    runs of its code), which fixbot holds to the bytes it put there (`fixbot.run.ranbytes`)."""
    ran = {file[_len(root) :]: record[3] for file, record in found.items()}
    return {"f": _held(found, root, modules), "b": dict(sorted(ran.items())[:_most])}


def rewriter() -> tuple[Any, Any, Any]:
    """(code, namespaces, class) of pytest's `AssertionRewritingHook.exec_module`, which runs a
    test module's code by its own `exec` (`loaded`'s `held`, with `machinery` of its module and
    class); (None, `machinery()`, None) where `_pytest.assertion.rewrite` is not imported."""
    module = sys.modules.get("_pytest.assertion.rewrite")
    hook = getattr(module, "AssertionRewritingHook", None)
    if hook is None:
        return None, machinery(), None
    return hook.exec_module.__code__, machinery((module, hook)), hook


def recorder(root: str, depth: int = 3) -> tuple[Any, Any]:
    """(`record(args, event)`, `files()`): `record` keeps, from an `exec` audit event's `args`
    (`event` "exec", the default; a `compile` event's: `compiled`'s digest of its source), the
    module code of each file under `root` (the work tree's root, real, with a trailing
    separator) the import system ran (`loaded`: `exec` called `depth` frames above it; the
    pytest plugin's: `record`, then `reach.install`'s hook); `files()` names those files
    relative to `root` whose names still hold (`held`, against `sys.modules` as it is now);
    `files(True)` the whole `imported` record's fields (`record_of`). The pytest plugin's,
    handed to its audit hook (`reach.install`'s `executed`), added at its load and never
    removed (an audit hook cannot be)."""
    found: dict[str, tuple[Any, Any, str, str]] = {}
    pending: dict[int, tuple[str, str]] = {}
    machine = rewriter()

    def record(
        args: tuple[Any, ...],
        event: str = EXEC,
        _found: dict[str, Any] = found,
        _pending: dict[int, Any] = pending,
        _root: str = root,
        _depth: int = depth,
        _held: tuple[Any, Any, Any] = machine,
        _loaded: Any = loaded,
        _compiled: Any = compiled,
        _exec: str = EXEC,
    ) -> None:
        if event == _exec:
            _loaded(args, _found, _root, _depth, _held, _pending)
        else:
            _compiled(args, _pending, _root)

    def files(
        whole: bool = False,
        _found: dict[str, Any] = found,
        _root: str = root,
        _modules: dict[str, Any] = sys.modules,
        _held: Any = held,
        _record: Any = record_of,
    ) -> Any:
        return (_record if whole else _held)(_found, _root, _modules)

    return record, files
