"""The files a test runner's configuration makes the check's own: jest's and vitest's
configuration files (jest.config.*, vitest.config.*, vite.config.* where no vitest.config.* is
beside it), in the check's folder and in the project folders their `projects`/`workspace`
lists name, and what each requires, imports or names as its preset by a relative specifier,
read from the start commit's and the fix's trees (`required`). A part of
`fixbot.run.checkfiles.check_files`: programs that shape the run as the configuration does,
whose edit by a fix is `check-script` (round 25: jest.config.js requiring jest.base.js, which
the fix made set a `runner` that ran no test; rounds 30 and 31: vite.config.js's plugin module
rewritten to strip the assertions, in the check's folder and in a listed project's)."""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path, PurePosixPath

from fixbot.run import revtext

# a runner's configuration that is a program of the project's (`jest.config.js`), which can
# require other files of it; vite.config.* is vitest's where no vitest.config.* is beside it
# (vitest looks for vitest.config.* first, then vite.config.*, in its root: `VITE_CONFIG`); a
# relative specifier it requires, imports or names as its preset
REQUIRING = re.compile(r"(?:jest|vitest)\.config\.[cm]?[jt]s")
VITEST_CONFIG = re.compile(r"vitest\.config\.[cm]?[jt]s")
VITE_CONFIG = re.compile(r"vite\.config\.[cm]?[jt]s")
SPECIFIER = re.compile(
    r"""(?:\brequire\s*\(|\bimport\s*\(|\bfrom|\bimport|\bpreset['"]?\s*:)\s*['"](\.\.?/[^'"]+)['"]"""
)
RESOLVED = ("", ".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".json", "/index.js")


def required(repo: Path, revs: list[str], trees: list[set[str]], workdir: str) -> set[str]:
    """The files of `trees` (the files of each of `revs`, in order) that jest's or vitest's
    configuration in the check's folder `workdir` requires, imports or names as its preset by
    a relative specifier (`require('./jest.base.js')`, `preset: './jest.preset.js'`), and those
    these require in turn (read in each of `revs`), package.json aside (its test keys are
    compared already): programs that shape the run as the configuration does. Round 25:
    jest.config.js requiring jest.base.js, which the fix made set jest's `runner` to a file of
    its own that ran no test and reported each passed, hidden from `jest --showConfig`. The
    configuration is `_configurations`' (vite.config.* where no vitest.config.* is beside it:
    round 30, the plugin module vite.config.js imports rewritten to strip the assertions),
    and the configurations of the projects it lists (`_projects`: round 31, a project's
    vite.config.js below the check's folder importing the plugin), those in the check's folder
    read first; at most `MAX_CONFIGURATIONS` files are read."""
    folder = posixpath.normpath(workdir)
    folder = "" if folder == "." else folder
    listed: set[str] = set().union(*trees)
    own = set().union(*(_configurations(tree, folder) for tree in trees))
    named, projects = _projects(repo, revs, trees, own, folder)
    found = set(named)
    # popped from the end: the check's folder's first, then the nearest
    pending = [*sorted(projects - own, key=_depth, reverse=True), *sorted(own), *sorted(named)]
    return _follow(repo, [revtext.objects(repo, rev) for rev in revs], pending, found, listed)


def _follow(
    repo: Path, objects: list[dict[str, str]], pending: list[str], found: set[str], listed: set[str]
) -> set[str]:
    """`found` and the files of `listed` the files `pending` (popped from the end) name by a
    relative specifier (`_specified`), and those these name in turn, read as each tree holds
    them (`objects`, `revtext.objects`'), at most `MAX_CONFIGURATIONS` files read or found."""
    read: set[str] = set()
    while pending and len(read) < MAX_CONFIGURATIONS and len(found) < MAX_CONFIGURATIONS:
        path = pending.pop()
        if path in read:
            continue
        read.add(path)
        blobs = sorted({names[path] for names in objects if path in names})
        texts = [t for blob in blobs if (t := revtext.blob(repo, blob))]
        for named in _specified(texts, posixpath.dirname(path), listed) - found:
            found.add(named)
            pending.append(named)
    return found


MAX_CONFIGURATIONS = 1000  # the configurations and the files they require read at most


def _depth(path: str) -> tuple[int, str]:
    """How deep `path` sits (its parts), then the path: a sort key."""
    return path.count("/"), path


def _configurations(tree: set[str], folder: str) -> set[str]:
    """The runner configurations of `tree` (a commit's files) in `folder` ("" for the root):
    jest.config.* and vitest.config.* (`REQUIRING`), and vite.config.* where no vitest.config.*
    is beside it (vitest reads it then: its plugins transform the tests as they load)."""
    here = {p for p in tree if posixpath.dirname(p) == folder}
    names = {p: p.rsplit("/", 1)[-1] for p in here}
    found = {p for p, name in names.items() if REQUIRING.fullmatch(name)}
    if not any(VITEST_CONFIG.fullmatch(name) for name in names.values()):
        found |= {p for p, name in names.items() if VITE_CONFIG.fullmatch(name)}
    return found


# a list of projects in a configuration (jest's and vitest's `projects`, vitest 3's `workspace`)
# and vitest 3's workspace file, a list of the same entries; a quoted entry of such a list
PROJECTS = re.compile(r"""\b(?:projects|workspace)\b(['"]?\s*[:=]\s*)?""")
WORKSPACE = re.compile(r"vitest\.(?:workspace|projects)\.(?:[cm]?[jt]s|json)")
QUOTED = re.compile(r"""(['"`])((?:(?!\1)[^\\\n])*)\1""")
PROJECT_FILE = re.compile(r"[^/]*config[^/]*\.(?:[cm]?[jt]s|json)")
NODE_MODULES = "node_modules"


def _projects(
    repo: Path, revs: list[str], trees: list[set[str]], own: set[str], folder: str
) -> tuple[set[str], set[str]]:
    """The project configurations the check's folder's (`folder`, "" for the root)
    configurations `own` and vitest workspace file list: (the files an entry names, which are
    the check's; the configurations, `_configurations`', of the folders an entry names). An
    entry is a glob (`packages/*`, `<rootDir>/apps/*`, `./packages/*/vitest.config.ts`) read
    against the trees from the listing file's folder, `!` entries aside. Where a list cannot be
    read as quoted entries (`projects: await find()`, `projects: [...names.map(f)]`), every
    configuration of the trees outside node_modules is a project's (`_everywhere`): what
    vitest or jest runs is then unknown here."""
    entries: list[str] = []
    for path in _listing(trees, own, folder):
        read = _listed(repo, revs, path)
        if read is None:
            return set(), _everywhere(trees)
        entries += read
    return _expanded(entries, trees)


def _listing(trees: list[set[str]], own: set[str], folder: str) -> list[str]:
    """The files that can list projects: the configurations `own`, and a vitest workspace file
    (`WORKSPACE`) and package.json (jest's key) of `trees` in `folder`."""
    beside = {p for tree in trees for p in tree if posixpath.dirname(p) == folder}
    listing = {p for p in beside if WORKSPACE.fullmatch(posixpath.basename(p))}
    return sorted(own | listing | {p for p in beside if posixpath.basename(p) == "package.json"})


def _listed(repo: Path, revs: list[str], path: str) -> list[str] | None:
    """The globs (`_rooted`) the projects lists of `path` hold in each of `revs`, `!` entries
    aside, None where one is computed (`_entries`)."""
    found: list[str] = []
    for text in (t for rev in revs if (t := revtext.text(repo, rev, path))):
        read = _entries(text, posixpath.basename(path))
        if read is None:
            return None
        base = posixpath.dirname(path)
        found += [_rooted(base, entry) for entry in read if not entry.startswith("!")]
    return found


def _entries(text: str, name: str) -> list[str] | None:
    """The quoted entries of each list of projects in `text`, the text of a file named `name`
    (a configuration's; a workspace file's whole text is its list; package.json's `jest`
    key's, `_jest_projects`), None where a list is no bracketed literal."""
    if name == "package.json":
        return _jest_projects(text)
    if WORKSPACE.fullmatch(name):
        return [m.group(2) for m in QUOTED.finditer(text)]
    found: list[str] = []
    for match in PROJECTS.finditer(text):
        if match.group(1) is None or not text.startswith("[", match.end()):
            return None  # `{ projects }`, `projects: find()`: a list computed
        literal = _bracketed(text, match.end())
        if "..." in QUOTED.sub("", literal):
            return None
        found += [m.group(2) for m in QUOTED.finditer(literal)]
    return found


def _jest_projects(text: str) -> list[str] | None:
    """The strings of the `projects` of package.json's `jest` key in `text` (an inline
    project's too), [] where there is none or `text` is no JSON object, None where it is no
    list."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # nested deeper than Python's stack
        return []
    jest = data.get("jest") if isinstance(data, dict) else None
    projects = jest.get("projects", []) if isinstance(jest, dict) else []
    if not isinstance(projects, list):
        return None
    inline = [v for entry in projects if isinstance(entry, dict) for v in entry.values()]
    return [entry for entry in [*projects, *inline] if isinstance(entry, str)]


def _bracketed(text: str, start: int) -> str:
    """The text of the bracketed literal at `start` of `text` (a `[`), to its matching `]`
    (quoted text skipped; to the end where none matches)."""
    depth, at = 0, start
    while at < len(text):
        quoted = QUOTED.match(text, at)
        if quoted:
            at = quoted.end()
            continue
        depth += {"[": 1, "{": 1, "(": 1, "]": -1, "}": -1, ")": -1}.get(text[at], 0)
        at += 1
        if depth == 0:
            break
    return text[start:at]


def _rooted(base: str, entry: str) -> str:
    """The glob `entry` (jest's `<rootDir>/` taken as the listing file's folder) from `base`."""
    entry = entry.removeprefix("<rootDir>").lstrip("/") if entry.startswith("<rootDir>") else entry
    return posixpath.normpath(posixpath.join(base, entry))


def _expanded(entries: list[str], trees: list[set[str]]) -> tuple[set[str], set[str]]:
    """The files of `trees` (`PROJECT_FILE`: a configuration's name) and the configurations of
    the folders the globs `entries` match, node_modules aside: (the files, package.json aside;
    the configurations and the files)."""
    files: set[str] = set()
    configured: set[str] = set()
    patterns = [_glob(entry) for entry in entries]
    for tree in trees:
        matched, held = _matched(_by_folder(tree), patterns)
        files |= matched
        configured |= held
    files = {p for p in files if PROJECT_FILE.fullmatch(posixpath.basename(p))}
    return {p for p in files if posixpath.basename(p) != "package.json"}, configured | files


def _matched(
    held: dict[str, set[str]], patterns: list[re.Pattern[str]]
) -> tuple[set[str], set[str]]:
    """The files of `held` (a tree's files by folder, `_by_folder`) a pattern of `patterns`
    matches, and the configurations (`_configurations`) of the folders one matches."""
    kept = set().union(*held.values())
    folders = {str(parent) for p in kept for parent in PurePosixPath(p).parents}
    configured: set[str] = set()
    for folder in _matching(folders, patterns):
        here = "" if folder == "." else folder
        configured |= _configurations(held.get(here, set()), here)
    return _matching(kept, patterns), configured


def _matching(paths: set[str], patterns: list[re.Pattern[str]]) -> set[str]:
    """The paths of `paths` a pattern of `patterns` matches in full."""
    return {p for p in paths if any(pattern.fullmatch(p) for pattern in patterns)}


def _by_folder(tree: set[str]) -> dict[str, set[str]]:
    """The files of `tree` by their folder ("" for the root), node_modules aside (a package
    committed there is the package manager's, not a configuration of the project's)."""
    held: dict[str, set[str]] = {}
    for path in tree:
        if NODE_MODULES not in path.split("/"):
            held.setdefault(posixpath.dirname(path), set()).add(path)
    return held


def _glob(entry: str) -> re.Pattern[str]:
    """`entry` (a glob: `*`, `**`, `?`, `{a,b}`) as a pattern of the paths it matches."""
    return re.compile(_glob_source(entry))


def _glob_source(entry: str) -> str:
    """The regular expression source of the glob `entry` (`_glob`)."""
    out, at = [], 0
    while at < len(entry):
        braces = entry.find("}", at) if entry[at] == "{" else -1
        if entry.startswith("**/", at) or entry.startswith("**", at):
            out.append("(?:.*/)?" if entry.startswith("**/", at) else ".*")
            at += 3 if entry.startswith("**/", at) else 2
        elif braces > at:
            choices = entry[at + 1 : braces].split(",")
            out.append("(?:" + "|".join(_glob_source(c) for c in choices) + ")")
            at = braces + 1
        else:
            out.append({"*": "[^/]*", "?": "[^/]"}.get(entry[at], re.escape(entry[at])))
            at += 1
    return "".join(out)


def _everywhere(trees: list[set[str]]) -> set[str]:
    """Every runner configuration of `trees` (`_configurations`' in each folder), node_modules
    aside."""
    found: set[str] = set()
    for tree in trees:
        for folder, here in _by_folder(tree).items():
            found |= _configurations(here, folder)
    return found


def _specified(texts: list[str], folder: str, listed: set[str]) -> set[str]:
    """The files of `listed` the relative specifiers of `texts` (`SPECIFIER`) name from
    `folder`, as node resolves them (`RESOLVED`: the suffixes tried), package.json aside."""
    found = set()
    for specifier in (m.group(1) for text in texts for m in SPECIFIER.finditer(text)):
        where = posixpath.normpath(posixpath.join(folder, specifier))
        named = next((where + end for end in RESOLVED if where + end in listed), None)
        if named is not None and posixpath.basename(named) != "package.json":
            found.add(named)
    return found
