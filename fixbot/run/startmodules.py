"""The start commit's Python modules as the tests' files name them: each file read from git and
parsed once (`StartModules`), the file an import names (`module_file`), the file that defines a
name a module hands on (`definition`) and the files the tests' reference to an assertion function
holds as theirs (`asserted`). Used by `fixbot.run.integrity` (which files are the tests') and
`fixbot.run.supportfiles` (their support). Reads git through `fixbot.run.revtext`; raises what
it raises (`fixbot.core.errors` git errors) on an unknown commit."""

from __future__ import annotations

import posixpath
from pathlib import Path

from fixbot.run import revtext
from fixbot.tamper import changes as sides
from fixbot.tamper import imports


class StartModules:
    """The start commit's Python files, each read and parsed once however many names the tests
    refer to in it (a star import tries every public name); `texts` (path to text) those
    already read."""

    def __init__(self, repo: Path, start: str, texts: dict[str, str] | None = None) -> None:
        self.repo, self.start = repo, start
        self.texts: dict[str, str] = dict(texts or {})
        self.tops: dict[str, imports.ModuleLevel] = {}
        self.asserts: dict[str, frozenset[str]] = {}

    def text(self, path: str) -> str:
        """The file's text at the start ("" where it has none)."""
        if path not in self.texts:
            self.texts[path] = revtext.text(self.repo, self.start, path) or ""
        return self.texts[path]

    def top(self, path: str) -> imports.ModuleLevel:
        """What the file defines and hands on (`fixbot.tamper.imports.module_level`)."""
        if path not in self.tops:
            self.tops[path] = imports.module_level(self.text(path))
        return self.tops[path]

    def assertions(self, path: str) -> frozenset[str]:
        """The file's assertion functions where it is a module of assertions alone
        (`fixbot.tamper.changes.asserting`, `assertions_only`), else none."""
        if path not in self.asserts:
            text = self.text(path)
            alone = bool(text) and sides.assertions_only(text)
            self.asserts[path] = sides.asserting(text) if alone else frozenset()
        return self.asserts[path]


def asserted(found: str, name: str, tree: set[str], start: StartModules) -> list[str]:
    """The files the tests' reference to `name` of module file `found` holds as theirs: the
    one defining it, where it is an assertion function in a module of assertions alone, and
    the modules on the way that only hand it on (`definition`, `ModuleLevel.only_imports`);
    else none."""
    files, defined = definition(found, name, tree, start)
    if not files or defined not in start.assertions(files[-1]):
        return []
    return [f for f in files if f == files[-1] or start.top(f).only_imports]


def definition(
    path: str, name: str, tree: set[str], start: StartModules, hops: int = 4
) -> tuple[list[str], str]:
    """The files from `path` to the one that defines module-level `name` (`def`, `class`, an
    assignment), following the module's own imports that bind it (`from .asserts import
    assert_alike`, `from checks.asserts import *`) at most `hops` times, and the name it is
    defined by there (`far` of `from .asserts import assert_alike as far`: `assert_alike`);
    no files where none of the tree defines it there (a dependency's, a name it lacks)."""
    top = start.top(path)
    if name in top.defined:
        return [path], name
    if hops <= 0:
        return [], name
    for level, module, imported in top.sources(name):
        found = module_file(path, level, module, tree)
        if found is not None and found != path:
            rest, defined = definition(found, imported, tree, start, hops - 1)
            if rest:
                return [path, *rest], defined
    return [], name


def module_file(importer: str, level: int, module: str, tree: set[str]) -> str | None:
    """The file of `tree` (root-relative paths) a module imported by file `importer` names:
    `level` leading dots relative to its folder; none, the module from the root or from the
    importer's own folder (where unittest's discovery or a script puts it on `sys.path`).
    None where no such file is in `tree` (a module of the standard library, a dependency's)."""
    folder = posixpath.dirname(importer)
    if level:
        bases = [posixpath.normpath(posixpath.join(folder, *[".."] * (level - 1)))]
    else:
        bases = ["", folder]
    relative = module.replace(".", "/")
    for base in bases:
        stem = posixpath.normpath(posixpath.join(base, relative)) if relative else base
        for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
            found = candidate.removeprefix("./")
            if found in tree:
                return found
    return None
