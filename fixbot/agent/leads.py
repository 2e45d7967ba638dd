"""Leads in the error text itself: the code an error message names, found by reading the
repository's Python files with `ast` (nothing is imported or run).

- An attribute: `AttributeError: 'C' object has no attribute 'a'`, or pytest's assertion
  rewriting `where True = <Option a>.is_bool_flag`. The fix is most often where the attribute
  is set (`self.a = ...`: a set-up method, a constructor), which the traceback never shows. Its
  assignments are shown, test files included (a nose-style `setup` that pytest no longer calls
  sets it there).
- A table: the error lines name a module-level registry or one of its keys (`Missing
  introspection for builtins: anext` and `module_info[builtins] = dict(...)`): the statement is
  shown, the entry to add goes there.
- A name a Go test calls that the package lacks: `./util_test.go:68:9: undefined:
  isValidChallengeKey` (the test names the function a fix adds; the test file does not
  build). The end of the file the test file tests (`util.go` for `util_test.go`), where a new
  function goes, and the functions of the package using a variable named after the missing
  name's last words (`challengeKey`: what it would check) are shown.
- An input a failing Go test's message quotes: `parse_test.go:266: unexpected number parsed
  from "12."`. The other lines of that test file using the same quoted input are shown: when
  the behaviour changes, an assertion elsewhere that encodes the old one (`f("12.", 0)`)
  changes with it.
- A removed name: `ImportError: cannot import name 'Mapping' from 'collections'`, or
  `ModuleNotFoundError: No module named 'imp'`. Python stops at the first such import, so the
  output names one file; every other line of the repository importing from that module needs
  the same change, and is shown.
- A warning raised as an error: `E   DeprecationWarning: ...`. A warning stops a test only
  when a filter makes it an error, most often the project's own pytest configuration
  (`filterwarnings = ["error"]`, https://docs.pytest.org/en/stable/how-to/capture-warnings.html);
  a warning a dependency or a new Python emits is then fixed there (an `ignore:` entry) or in
  the code that triggers it, and the traceback shows neither the configuration nor why. The
  `filterwarnings` settings of the configuration files pytest reads are shown.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from pathlib import Path

from fixbot.agent import gocov
from fixbot.agent.locate import TEST_FILE, Span
from fixbot.core.repofiles import regular_text
from fixbot.ecosystems import registry

MAX_FILES = 3_000  # Python files read at most (a repository's own code, not its environment)
MAX_LEADS = 8  # spans shown per kind of lead
# installed packages and build output, every ecosystem's (`node_modules`, `venv`, `target`, ...)
SKIPPED_DIRS = registry.generated()
ATTRIBUTE = re.compile(
    r"has no attribute '(\w+)'"  # AttributeError
    r"|^E\s+(?:\+\s+)?where .* = .*\.(\w+)$",  # pytest: `where 1 = <obj>.attr`
    re.MULTILINE,
)
CANNOT_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
NO_MODULE = re.compile(r"No module named '([\w.]+)'")
ERROR_LINE = re.compile(r"^E\s|\w(Error|Exception):\s")
WARNING = re.compile(r"\b[A-Z]\w*Warning\b")
# the files pytest reads its configuration from, with its ini options
# (https://docs.pytest.org/en/stable/reference/customize.html#configuration-file-formats)
PYTEST_CONFIGS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
FILTERWARNINGS = re.compile(r"^(\s*)filterwarnings\s*=")
# go build / go vet: `./util_test.go:68:9: undefined: isValidChallengeKey`
GO_UNDEFINED = re.compile(
    r"(?:^|\s)(?:\./)?([\w./-]*?)(\w+_test\.go):\d+(?::\d+)?: undefined: (\w+)(?![\w.])", re.M
)
# a Go test's message: `parse_test.go:266: unexpected number parsed from "12."; got 0`
GO_TEST_MESSAGE = re.compile(r"(?:^|\s)(?:\./)?([\w./-]*?)(\w+_test\.go):(\d+): (.*)$", re.M)
GO_STRING = re.compile(r'"((?:[^"\\\n]|\\.){2,80})"')
MAX_SAME_INPUT = 12  # an input on more lines of a test file than this says nothing of where
TAIL = 8  # lines of the tested file's last function shown whole, else its first and last ones
CAMEL_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
IDENTIFIER = re.compile(r"\b[A-Za-z_]\w{3,}\b")


def python_files(repo: Path) -> Iterator[str]:
    """The repository's Python files (relative, posix), hidden folders and environments left
    out, at most `MAX_FILES`."""
    return _files(repo, ".py")


def _files(repo: Path, suffix: str) -> Iterator[str]:
    """The repository's files ending `suffix` (relative, posix), hidden folders and
    environments left out, at most `MAX_FILES`."""
    count = 0
    for folder, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in sorted(files):
            if name.endswith(suffix) and count < MAX_FILES:
                count += 1
                yield (Path(folder) / name).relative_to(repo).as_posix()


def _source(repo: Path, rel: str) -> str:
    """The text of `rel`, '' unless a regular file of the repository (`repofiles.regular_text`)."""
    return regular_text(repo, repo / rel) or ""


def _tree(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def attributes(text: str) -> list[str]:
    """The attribute names an error text says are missing or wrong, in order."""
    return list(dict.fromkeys(a or b for a, b in ATTRIBUTE.findall(text)))


def _enclosing(tree: ast.Module, line: int) -> tuple[int, int, str] | None:
    kinds = ast.FunctionDef | ast.AsyncFunctionDef
    inside = [
        (n.lineno, n.end_lineno or n.lineno, n.name)
        for n in ast.walk(tree)
        if isinstance(n, kinds) and n.lineno <= line <= (n.end_lineno or n.lineno)
    ]
    return min(inside, key=lambda s: s[1] - s[0]) if inside else None


def _assigned(tree: ast.Module, names: set[str]) -> list[tuple[str, int]]:
    """(attribute, line) of every assignment to `x.<name>` in `tree`."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr in names:
                found.append((target.attr, node.lineno))
    return found


def attribute_spans(repo: Path, text: str) -> list[Span]:
    """The functions that set the attributes `text` names (`attributes`), focused on the
    assignments; non-test files first, at most `MAX_LEADS`."""
    names = set(attributes(text))
    if not names:
        return []
    found: dict[tuple[str, int, int, str], list[int]] = {}
    for rel in python_files(repo):
        source = _source(repo, rel)
        if not any(name in source for name in names):
            continue
        tree = _tree(source)
        for _, line in _assigned(tree, names) if tree else []:
            where = _enclosing(tree, line) if tree else None
            start, end, name = where or (line, line, "module level")
            found.setdefault((rel, start, end, name), []).append(line)
    ordered = sorted(found.items(), key=lambda item: (bool(TEST_FILE.search(item[0][0])), item))
    return [
        Span(rel, start, end, name, 1.0, tuple(lines))
        for (rel, start, end, name), lines in ordered[:MAX_LEADS]
    ]


def _imports(node: ast.AST, module: str) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.module == module and not node.level
    if isinstance(node, ast.Import):
        return any(a.name == module or a.name.startswith(module + ".") for a in node.names)
    return False


def _imports_from(tree: ast.Module, module: str) -> list[int]:
    found = (n for n in ast.walk(tree) if isinstance(n, ast.stmt) and _imports(n, module))
    return sorted(n.lineno for n in found)


def import_spans(repo: Path, text: str) -> list[Span]:
    """The lines of the repository's non-test files that import from a module `text` says a
    name is gone from (or that is gone), one span per line, at most `MAX_LEADS`."""
    modules = [m for _, m in CANNOT_IMPORT.findall(text)] + NO_MODULE.findall(text)
    if not modules:
        return []
    found: list[Span] = []
    for rel in python_files(repo):
        if TEST_FILE.search(rel):
            continue
        source = _source(repo, rel)
        if not any(m in source for m in modules):
            continue
        tree = _tree(source)
        for module in dict.fromkeys(modules):
            for line in _imports_from(tree, module) if tree else []:
                found.append(Span(rel, line, line, f"imports {module}", 1.0))
    return found[:MAX_LEADS]


def error_words(text: str) -> set[str]:
    """The identifiers (4 characters or more) of the error lines of `text`: pytest's `E` lines
    and `...Error: message` lines."""
    lines = [line for line in text.splitlines() if ERROR_LINE.search(line)]
    return {w for line in lines for w in IDENTIFIER.findall(line)}


def _table_names(node: ast.stmt) -> set[str]:
    """The names a module-level data assignment binds (`x = {...}`, `table[key] = dict(...)`:
    x, table and key)."""
    targets = node.targets if isinstance(node, ast.Assign) else []
    value = node.value if isinstance(node, ast.Assign) else None
    data = ast.Dict | ast.List | ast.Set | ast.Tuple | ast.Call
    if not isinstance(value, data) or (isinstance(value, ast.Call) and not value.keywords):
        return set()
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def table_spans(repo: Path, text: str) -> list[Span]:
    """The module-level tables of the repository's non-test files that the error lines name
    (a registry keyed by the name the error says is missing), at most `MAX_LEADS`."""
    words = error_words(text)
    if not words:
        return []
    found: list[Span] = []
    for rel in python_files(repo):
        source = "" if TEST_FILE.search(rel) else _source(repo, rel)
        tree = _tree(source) if any(w in source for w in words) else None
        for node in tree.body if tree else []:
            named = _table_names(node) & words
            if named:
                end = node.end_lineno or node.lineno
                found.append(Span(rel, node.lineno, end, f"table {min(named)}", 1.0))
    return found[:MAX_LEADS]


def warning_spans(repo: Path, text: str) -> list[Span]:
    """The `filterwarnings` settings of the pytest configuration files in `repo`'s root when
    an error line of `text` names a warning class (a warning raised as an error), each from
    its key to the end of its value; [] otherwise."""
    lines = [line for line in text.splitlines() if ERROR_LINE.search(line)]
    if not any(WARNING.search(line) for line in lines):
        return []
    found = []
    for name in PYTEST_CONFIGS:
        numbered = _source(repo, name).splitlines()
        for index, line in enumerate(numbered):
            match = FILTERWARNINGS.match(line)
            if match:
                end = _setting_end(numbered, index, len(match.group(1)))
                found.append(Span(name, index + 1, end, "filterwarnings", 1.0))
    return found[:MAX_LEADS]


def _setting_end(lines: list[str], start: int, indent: int) -> int:
    """The 1-based last line of the setting whose key is `lines[start]`: a TOML array runs to
    its closing bracket, an ini value over the lines indented deeper than its key."""
    value = lines[start].split("=", 1)[1]
    end = start
    if value.lstrip().startswith("["):
        depth = value.count("[") - value.count("]")
        while depth > 0 and end + 1 < len(lines):
            end += 1
            depth += lines[end].count("[") - lines[end].count("]")
        return end + 1
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        if line.strip():
            end = index
    return end + 1


def go_files(repo: Path) -> Iterator[str]:
    """The module's Go files (relative, posix), hidden folders and environments left out, at
    most `MAX_FILES`."""
    return _files(repo, ".go")


def _last_words(name: str) -> re.Pattern[str] | None:
    """The identifiers made of `name`'s last two or more camel-case words, first letter of
    either case (`isValidChallengeKey` -> `validChallengeKey`, `ChallengeKey`...), whole."""
    words = CAMEL_WORD.findall(name)
    tails = ["".join(words[i:]) for i in range(1, len(words) - 1)]
    if not tails:
        return None
    either = (f"[{t[0].lower()}{t[0].upper()}]{re.escape(t[1:])}" for t in tails)
    return re.compile(r"\b(" + "|".join(either) + r")\b")


def go_undefined_spans(repo: Path, text: str) -> list[Span]:
    """For each name a Go test file calls that its package lacks (`GO_UNDEFINED` in `text`):
    the last function of the file that test file tests (`x.go` for `x_test.go`, where a new
    function goes), then the package's functions using a variable named after the name's last
    words (`_last_words`), focused on those lines; at most `MAX_LEADS`."""
    wanted = {(folder, test, name) for folder, test, name in GO_UNDEFINED.findall(text)}
    if not wanted:
        return []
    files = list(go_files(repo))
    found: list[Span] = []
    for folder, test, name in sorted(wanted):
        # go names the file relative to its package's folder: the test file holding the name
        held = [f for f in files if f.endswith("/" + folder + test) or f == folder + test]
        for rel in [f for f in held if name in _source(repo, f)][:1]:
            found += _go_undefined(repo, files, rel, name)
    return list(dict.fromkeys(found))[:MAX_LEADS]


def _go_undefined(repo: Path, files: list[str], test: str, name: str) -> list[Span]:
    """The leads of the name `name` the Go test file `test` calls and its package lacks: the
    last function of the file `test` tests (where a new function goes, focused on its end),
    then the functions of the package's other non-test files of `files` that use a variable
    named after the name's last words (`_last_words`), focused on those lines."""
    tested = test.removesuffix("_test.go") + ".go"
    found = [
        Span(tested, start, end, f"{fn}, the end of {Path(test).name}'s file", 1.0, (end,), TAIL)
        for start, end, fn in gocov.functions(repo, tested)[-1:]
    ]
    uses = _last_words(name)
    if uses is None:
        return found
    package = str(Path(test).parent)
    for rel in files:
        if str(Path(rel).parent) == package and not rel.endswith("_test.go"):
            lines = enumerate(_source(repo, rel).splitlines(), start=1)
            found += _holding(repo, rel, {n for n, line in lines if uses.search(line)})
    return found


def _holding(repo: Path, rel: str, hits: set[int]) -> list[Span]:
    """The gofmt'd top-level functions of the Go file `rel` holding a line of `hits`, each
    focused on those lines (the first `gocov.MAX_FOCUS`), in the file's order."""
    found = []
    for start, end, fn in gocov.functions(repo, rel):
        inside = sorted(n for n in hits if start <= n <= end)
        if inside:
            found.append(Span(rel, start, end, fn, 1.0, tuple(inside[: gocov.MAX_FOCUS])))
    return found


def go_same_input_spans(repo: Path, text: str) -> list[Span]:
    """The functions of a Go test file whose other lines use a string its failing test's
    message quotes (`GO_TEST_MESSAGE`, `GO_STRING`: `"12."` in `... parsed from "12."`),
    focused on those lines (not the message's own), at most `MAX_LEADS`; an input on more
    than `MAX_SAME_INPUT` lines of the file is left out."""
    wanted: dict[tuple[str, str], set[tuple[int, str]]] = {}
    for folder, test, line, message in GO_TEST_MESSAGE.findall(text):
        for literal in GO_STRING.findall(message):
            if literal.strip():
                wanted.setdefault((folder, test), set()).add((int(line), f'"{literal}"'))
    if not wanted:
        return []
    files = list(go_files(repo))
    found: list[Span] = []
    for (folder, test), inputs in sorted(wanted.items()):
        held = [f for f in files if f.endswith("/" + folder + test) or f == folder + test]
        for rel in held:
            found += _same_input(repo, rel, inputs)
    return list(dict.fromkeys(found))[:MAX_LEADS]


def _same_input(repo: Path, rel: str, inputs: set[tuple[int, str]]) -> list[Span]:
    """The functions of the Go test file `rel` with a line using one of the quoted strings of
    `inputs` (the line its failing test reported, the string quoted), focused on those lines;
    the reported lines themselves, and a string used on more than `MAX_SAME_INPUT` lines, left
    out."""
    lines = _source(repo, rel).splitlines()
    reported = {line for line, _ in inputs}
    hits: set[int] = set()
    for quoted in {q for _, q in inputs}:
        using = [n for n, line in enumerate(lines, start=1) if quoted in line]
        if len(using) <= MAX_SAME_INPUT:
            hits |= set(using) - reported
    return _holding(repo, rel, hits)


def spans(repo: Path, text: str) -> list[Span]:
    """Every lead of the error text `text` in `repo`: the removed imports, the attributes, the
    tables, the warning filters, the names a Go test calls that its package lacks, then the
    other uses of an input a Go test's message quotes."""
    return [
        *import_spans(repo, text),
        *attribute_spans(repo, text),
        *table_spans(repo, text),
        *warning_spans(repo, text),
        *go_undefined_spans(repo, text),
        *go_same_input_spans(repo, text),
    ]
