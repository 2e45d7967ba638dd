"""The observer's refusal of bytecode caches: the project's modules run from their source bytes.

Copied beside the observer's plugin (`fixbot.observe.channel`) and loaded with it, inside the
project's own Python (3.8 or later), before any conftest or test module is imported (pytest:
the `-p` plugin; unittest: `sitecustomize`). It imports the standard library alone.

Python imports a module from its cached bytecode (`__pycache__/<name>.<tag>.pyc`, PEP 3147)
where the cache's header matches the source's size and whole-second modification time (PEP
552's default), and pytest imports a test module from its own rewritten cache on the same
terms. The project's commands can write both: a cache written by the code under test (an
emptied assertion function compiled under a pinned module's path, its header the source's size
and mtime, round 38) runs in place of the bytes fixbot judged, and a cache of the fix's run is
taken as current for the start's file put back within the same second by the deciding check.
A hash-based cache is no answer: the plant can carry the source's hash.

So, once the hook is added, no `.pyc` is opened (read or written, by the import system, by
pytest, by anyone) outside the interpreter's own library folders (`sysconfig`'s standard
library and installed packages, `site`'s package folders: a virtual environment's inside the
work tree too where it runs the check; never a folder by its name alone, round 40: a work-tree
folder named `site-packages` is no library), nor while `sys.pycache_prefix` names any folder
(round 40: the import system then looks for every module's cache under that prefix, which the
code can point into a library folder; the prefix is set to None at install and read at each
open), neither by the path as named nor as resolved:
the audit hook (PEP 578, which nothing can remove) answers the `open` event with
`FileNotFoundError`, which the import system (`SourceLoader.get_code`) and pytest
(`_read_pyc`) both take as "no cache" and compile the source. `sys.dont_write_bytecode` is set
too, so no cache is written where none will be read. The work tree's modules are compiled from
their source in every observed process: the cost is a compile per imported project module per
process (docs/SECURITY.md gives the figure measured).

What it cannot see: a process the observer is not loaded in (a subprocess of the tests that is
no unittest run, a check no observer rides), and code that is not bytecode: a compiled
extension module (`<name>.cpython-3x-*.so`) beside the source, which the import system prefers.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from collections.abc import Callable
from typing import Any

SUFFIX = ".pyc"  # `importlib.machinery.BYTECODE_SUFFIXES`, pytest's rewritten cache's too


def install() -> Callable[[str, Any], None]:
    """Add the audit hook refusing every `.pyc` outside the library folders (`allowed`), and
    stop the import system writing caches (`sys.dont_write_bytecode`). Returns the hook (the
    observer guards its code and defaults as its other functions'). Cannot be undone."""
    sys.dont_write_bytecode = True
    sys.pycache_prefix = None  # every cache beside its source (PEP 3147), none under a prefix
    hook = _hook(_folders())
    sys.addaudithook(hook)
    return hook


def _folders() -> tuple[str, ...]:
    """The interpreter's library folders as `sysconfig` names them (standard library and
    installed packages, a virtual environment's too) and as `site` put them on the path at
    start-up (Debian's `/usr/lib/python3/dist-packages`, the user's site folder), each resolved
    and ending in a separator: read before any of the project's code runs."""
    paths = sysconfig.get_paths()
    found = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    found.update(_site_folders())
    return tuple(sorted({os.path.join(os.path.realpath(f), "") for f in found}))


def _site_folders() -> list[str]:
    """The package folders `site` adds (`site.getsitepackages()`, the user's site folder when
    enabled); none where Python ran without `site` (`-S`: the module is still importable)."""
    found = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    if site.ENABLE_USER_SITE and isinstance(site.USER_SITE, str):
        found.append(site.USER_SITE)
    return found


def _hook(folders: tuple[str, ...]) -> Callable[[str, Any], None]:
    """The audit hook over `open` events: a path naming a `.pyc` that `allowed` refuses raises
    `FileNotFoundError` (an `OSError`: the import system and pytest read it as no cache).
    What it calls is held as positional defaults: the code under test may rebind a module's
    names (`os.path.realpath`) after load."""
    paths = (os.path.abspath, os.path.realpath)

    def hook(
        event: str,
        args: Any,
        _folders: tuple[str, ...] = folders,
        _allowed: Any = allowed,
        _paths: Any = paths,
        _suffix: str = SUFFIX,
        _fsdecode: Any = os.fsdecode,
        _str: Any = str,
        _bytes: Any = bytes,
        _error: Any = FileNotFoundError,
        _isinstance: Any = isinstance,
        _sys: Any = sys,
    ) -> None:
        if event != "open" or not args:
            return
        path = args[0]
        if not _isinstance(path, (_str, _bytes)):  # a descriptor, a path-like object
            try:
                path = path.__fspath__()
            except Exception:
                return
        name = _fsdecode(path) if _isinstance(path, _bytes) else path
        if not _isinstance(name, _str) or not name.endswith(_suffix):
            return
        if _sys.pycache_prefix is not None or not _allowed(name, _folders, *_paths):
            raise _error(2, "fixbot's observer reads no bytecode cache here", name)

    return hook


def allowed(
    name: str,
    folders: tuple[str, ...],
    abspath: Callable[[str], str] = os.path.abspath,
    realpath: Callable[[str], str] = os.path.realpath,
) -> bool:
    """Whether the `.pyc` at `name` (absolute, or relative to the current folder) may be
    opened: both its normalized path and its real path (links resolved) lie in one of the
    library `folders` (`_folders`). A link from the work tree into a library folder, or from
    one out of it, is refused."""
    named = abspath(name)
    real = realpath(name)
    return _library(named, folders) and _library(real, folders)


def _library(path: str, folders: tuple[str, ...]) -> bool:
    """Whether `path` lies in one of `folders` (each ending in a separator)."""
    return path.startswith(folders)
