"""Where else a JavaScript or TypeScript module's binding is read that a shown function reads.

A fix of how a module's export is used (resolve 1.12.2 reads its table of core modules as
`core[x]`, which finds `Object.prototype`'s keys) is made at each place that reads it the same
way: the function the spectrum ranks (`isCore` in `index.js`) and the sibling modules that
require the same module and read it the same way (`lib/async.js`, `lib/sync.js`), which no
failing test may run. `users` gives, for a shown function of a JS/TS file, the lines reading
each name it reads that its file binds to a repository module (`var core =
require('./lib/core')`, `import * as core from "./core"`, `import { a as b } from`, a
destructuring `const { a } = require(...)`): first in its own file (the binding and the
top-level lines, as `tables` shows a Python module's data), then in the other non-test files
that import the same module, each under the name it binds there. Pure reading of the files'
text with regular expressions (no parser of JS is at hand): nothing is run; a name read in a
comment or a string counts too, which shows a line more, never one less.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from fixbot.agent.locate import Span
from fixbot.agent.nodenear import JS_SUFFIXES, JS_TEST, resolve
from fixbot.core.repofiles import regular_text
from fixbot.process import git

MAX_FILES = 3  # other importing files shown per shown function, in the repository's order
MAX_LINES = 8  # lines of one file that read the name, each shown with `spantext.FOCUS_RADIUS`
RUN_LINES = 7  # lines reading the name that lie within this many are shown as one run
MAX_SCANNED = 2000  # JS/TS files of the repository read for their imports at most
# a binding of a module: `var|let|const NAME = require("spec")` (optionally `.member`),
# `import NAME from "spec"`, `import * as NAME from "spec"`, and the braced forms of both
DEFAULT = re.compile(
    r"""(?:\b(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*require\s*\(\s*['"]([^'"\s]+)['"]\s*\)"""
    r"""|\bimport\s+(?:\*\s+as\s+)?([A-Za-z_$][\w$]*)\s+from\s+['"]([^'"\s]+)['"])"""
)
BRACED = re.compile(
    r"""(?:\b(?:var|let|const)\s*\{([^}]*)\}\s*=\s*require\s*\(\s*['"]([^'"\s]+)['"]\s*\)"""
    r"""|\bimport\s+(?:type\s+)?\{([^}]*)\}\s*from\s+['"]([^'"\s]+)['"])"""
)
MEMBER = re.compile(r"([A-Za-z_$][\w$]*)\s*(?:(?:as|:)\s*([A-Za-z_$][\w$]*))?")


def bindings(text: str) -> dict[str, str]:
    """The names `text` binds to a module, name -> the module's specifier as written: the
    default and namespace forms (`core` of `var core = require('./core')`) and each local name
    of a braced form (`b` of `import { a as b } from './m'`, of `const { a: b } = require`)."""
    found: dict[str, str] = {}
    for match in DEFAULT.finditer(text):
        name, spec = (match[1], match[2]) if match[1] else (match[3], match[4])
        found[name] = spec
    for match in BRACED.finditer(text):
        names, spec = (match[1], match[2]) if match[2] else (match[3], match[4])
        for member in MEMBER.finditer(names):
            found[member[2] or member[1]] = spec
    return found


def _word(name: str) -> re.Pattern[str]:
    """`name` as a whole word that is no member of something else (`core`, not `x.core`)."""
    return re.compile(rf"(?<![\w$.]){re.escape(name)}(?![\w$])")


def _reading(lines: list[str], name: str, skip: range = range(0)) -> list[int]:
    """The 1-based numbers of the lines reading `name` as a whole word (`_word`), outside
    `skip`, the first `MAX_LINES`."""
    word = _word(name)
    return [n for n, line in enumerate(lines, 1) if n not in skip and word.search(line)][:MAX_LINES]


def _span(path: str, found: list[int], name: str, score: float) -> Span:
    """One span from the first to the last line of `found`, focused on each: shown whole when
    they lie within `RUN_LINES`, else as the first and `spantext.FOCUS_RADIUS` lines either side
    of each (`spantext.render`)."""
    return Span(path, found[0], found[-1], name, score, tuple(found), limit=RUN_LINES)


def _sources(repo: Path) -> list[str]:
    """The JS/TS files git tracks in `repo` that are no test file, in the listing's order."""
    done = git.completed(repo, "ls-files", "-z")
    if done.returncode != 0:
        return []
    names = [n for n in done.stdout.split("\0") if n.endswith(JS_SUFFIXES)]
    return [n for n in names if not JS_TEST.search(n) and "node_modules/" not in n][:MAX_SCANNED]


class _Imports:
    """Each file's module bindings, resolved to repository files (read once per file)."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.read: dict[str, dict[str, str | None]] = {}
        self.sources: list[str] | None = None

    def of(self, path: str) -> dict[str, str | None]:
        """Name -> the repository file `path` binds it to (None: a dependency, node's own)."""
        if path not in self.read:
            text = regular_text(self.repo, self.repo / path) or ""
            specs = bindings(text).items()
            self.read[path] = {name: resolve(self.repo, path, spec) for name, spec in specs}
        return self.read[path]

    def lines(self, path: str) -> list[str]:
        """The lines of `path`, [] when it is unreadable."""
        return (regular_text(self.repo, self.repo / path) or "").splitlines()

    def files(self) -> list[str]:
        """The repository's non-test JS/TS files (`_sources`), listed once."""
        if self.sources is None:
            self.sources = _sources(self.repo)
        return self.sources


def users(repo: Path, shown: Sequence[Span]) -> list[Span]:
    """The lines reading each module binding the functions `shown` read (see the module's
    docstring), for each in turn: a span of its own file's other lines reading it, then one
    per other non-test file importing the same module (at most `MAX_FILES` per function), each
    scored half of the function's and named after the name and the module; a file's name
    shown once. Functions of files that are no JS/TS files, or test files, read nothing here."""
    found: list[Span] = []
    done: set[tuple[str, str]] = set()
    imports = _Imports(repo)
    for span in shown:
        if not span.path.endswith(JS_SUFFIXES) or JS_TEST.search(span.path):
            continue
        lines = imports.lines(span.path)
        inside = "\n".join(lines[span.start - 1 : span.end])
        targets = {
            name: target
            for name, target in imports.of(span.path).items()
            if target is not None and _word(name).search(inside)
        }
        found += _own(lines, span, targets, done)
        if targets:
            found += _elsewhere(imports, span, set(targets.values()), done)
    return found


def _own(
    lines: list[str], span: Span, targets: dict[str, str], done: set[tuple[str, str]]
) -> list[Span]:
    """The spans of `span`'s own file's lines outside it reading each name of `targets` (name
    -> the module's file), one per name; `done` grows by each."""
    found: list[Span] = []
    for name, target in targets.items():
        own = _reading(lines, name, skip=range(span.start, span.end + 1))
        if own and (span.path, name) not in done:
            done.add((span.path, name))
            found.append(_span(span.path, own, f"reads {name}: {target}", span.score / 2))
    return found


def _elsewhere(
    imports: _Imports, span: Span, wanted: set[str], done: set[tuple[str, str]]
) -> list[Span]:
    """The spans of the first `MAX_FILES` other files binding a module of `wanted` and reading
    that name (one name per file), in the repository's order; `done` grows by each."""
    found: list[Span] = []
    for path in imports.files():
        if len(found) >= MAX_FILES:
            break
        if path == span.path:
            continue
        for name, target in imports.of(path).items():
            if target is None or target not in wanted or target == path or (path, name) in done:
                continue
            read = _reading(imports.lines(path), name)
            if read:
                done.add((path, name))
                found.append(_span(path, read, f"reads {name}: {target}", span.score / 2))
                break
    return found
