"""Verified means verified: the adapters around a green check before it may become `fixed`.

- `cheats(repo, start, verified, first, last)` reads the final diff from git and asks the pure
  detector (`fixbot.tamper.cheats.detect`) whether the green was bought by weakening the tests.
- `pinned(repo, start, verified, files)` names what the fix changed of the tests (test modules,
  conftests, the runner's configuration, the check command's own scripts), and `original_tree`
  makes the tree the deciding check runs on: the fix with those files as the start commit had
  them, as SWE-bench grades a patch with the original test patch applied on top (a Rust file of
  the code the fix only added tests to: the fix's code with the start's test regions).
  The check command's own files these take (`files`) are found by `fixbot.run.checkfiles`.
- `drift(repo, verified, now)` names the paths whose content differs between the tree the
  verifying check saw and a later one (a process of the check that edited a fixed file after the
  check passed, or text the check wrote into the fixer's files): such a tree is never committed.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from fixbot.core.failure import Counts
from fixbot.process import commits, git
from fixbot.run import revtext, supportfiles
from fixbot.run.startmodules import StartModules, asserted, definition, module_file
from fixbot.tamper import changes as sides
from fixbot.tamper import doctests, imports, rustreach, rusttests
from fixbot.tamper.changes import Change, is_test_file, of_the_tests
from fixbot.tamper.cheats import detect
from fixbot.tamper.filters import module_names
from fixbot.tamper.record import Cheat


def changes(repo: Path, start: str, verified: str) -> list[Change]:
    """The files that differ from commit `start` to `verified` (a commit or tree sha), with their
    old and new text. Raises `fixbot.core.errors` git errors when a sha is unknown."""
    names = git.changed_files(repo, start, verified)
    return [Change(p, revtext.text(repo, start, p), revtext.text(repo, verified, p)) for p in names]


def packages(repo: Path, verified: str) -> list[str]:
    """The folders of `verified` that hold an `__init__.py` ("." for the root)."""
    listed = git.names(repo, "ls-tree", "-r", "--name-only", verified)
    return [str(PurePosixPath(p).parent) for p in listed if PurePosixPath(p).name == "__init__.py"]


def cheats(
    repo: Path,
    start: str,
    verified: str,
    first: Counts | None,
    last: Counts | None,
    files: Iterable[str] = (),
    tests: Iterable[str] = (),
    supports: Iterable[str] = (),
    excused: Iterable[tuple[str, str]] = (),
    found: list[Change] | None = None,
) -> list[Cheat]:
    """The suspected cheats of the diff from `start` to the `verified` tree and of the counts of
    the first failing (`first`) and verifying (`last`) runs (`fixbot.tamper.cheats.detect`);
    `files` are the check command's own files (`check_files`), `tests` the ids of the tests the
    start's run collected (a module's doctests among them: `fixbot.tamper.doctests`),
    `supports` the files judged as test files beside those the rules name (`helpers`); a Rust
    test in the code's own file is a test too (`fixbot.tamper.rusttests`); `excused` the test
    functions the start's run reported xfailed that the fix may remove (`fixbot.tamper.xfailed`);
    `found` the diff's changes where the caller read them already (`changes`)."""
    found = changes(repo, start, verified) if found is None else found
    known, names = packages(repo, verified), modules(repo, verified)
    named = detect(found, first, last, known, files, names, supports, excused)
    texts, cut = _parents(repo, start, found)
    rust = rusttests.detect(found, texts) + rustreach.unread(found, cut)
    rust += rustreach.included(found, texts) + rustreach.data(found, texts)
    return named + doctests.detect(found, doctests.doctested(tests)) + rust


def _parents(repo: Path, start: str, found: list[Change]) -> tuple[dict[str, str], str]:
    """The start's text of each file that could declare a changed `.rs` file's module
    (`fixbot.tamper.rusttests.parents`: `#[cfg(test)] mod tests;` in src/lib.rs) or name it by
    a path from a test region (`rusttests.declarers`: `#[path = "checks.rs"]`, `include!`),
    and of the files the crates' module trees reach (`fixbot.tamper.rustreach.reach`, round
    42), with the first file its cap left unread ("" where none)."""
    rust = [change.path for change in found if rusttests.program_file(change.path)]
    blobs = revtext.objects(repo, start) if found else {}  # each file read by a `git cat-file`
    wanted = {parent for path in rust for parent in rusttests.parents(path)}
    wanted = (wanted | set(rusttests.declarers(rust, blobs))) & blobs.keys()
    reached = rustreach.reach([c.path for c in found], blobs, revtext.reader(repo, blobs))
    texts = {**{path: revtext.blob(repo, blobs[path]) for path in wanted}, **reached.texts}
    return {path: text for path, text in texts.items() if text}, reached.cut


def modules(repo: Path, verified: str) -> frozenset[str]:
    """The dotted names the Python files of tree `verified` are importable by
    (`fixbot.tamper.filters.module_names`)."""
    return module_names(git.names(repo, "ls-tree", "-r", "--name-only", verified))


def helpers(
    repo: Path,
    start: str,
    files: Iterable[str],
    imported: Iterable[str] = (),
    check: supportfiles.Check | None = None,
) -> frozenset[str]:
    """The files of `files` (relative to the root: those a failing unittest test's classes were
    made in at the start's run, `Observation.classes`) that are test support by commit
    `start`'s text (`fixbot.tamper.changes.supports_tests`: a `TestCase` subclass or a class
    defining an assert method or a fixture) and no test file already: the tests' (round 34, a
    helper module's `assertAlike` emptied). A fix's change of one is a test change, judged by
    the test rules (`helpers` of `cheats`) and put back as the start had it for the deciding
    check (`pinned`, `original_tree`). Python files of `start`'s tree alone: one it lacks, or
    outside the work tree (unittest's own `IsolatedAsyncioTestCase`, named by its absolute
    path), is none. With them, the files of the work tree holding a function that only asserts
    which those helpers or the failing tests' own files call by an imported name
    (`_asserting_files`, round 36: checks.py's `assert_alike`): the tests' whole, as a helper
    base's file is. A pytest test's helper base (pytest's observer streams no classes: `files`
    holds the failing tests' own files there) is a file of the work tree a test file of
    `files` imports from that is test support (`_imported_support`, round 38). And the files
    the start's run imported (`imported`, `Observation.imported`, however the import was
    spelled) that are modules of assertions alone naming an assertion function those callers
    name (`_observed_assertions`, round 39). `check` (how pytest is started: its command,
    folder and environment) names the plugins pytest loads by `-p` (`supportfiles.loaded`,
    round 41), the tests' as a `pytest_plugins` module is."""
    texts, tree = _start_texts(repo, start, files)
    modules = StartModules(repo, start, texts)  # each start file read from git once
    reached = _imported_support(modules, texts, tree, check or supportfiles.Check())
    texts.update(reached)
    support = {
        p
        for p, text in texts.items()
        if not is_test_file(p) and (p in reached or sides.supports_tests(text))
    }
    callers = {p: texts[p] for p in support | {p for p in texts if is_test_file(p)}}
    seen = _observed_assertions(modules, callers, set(imported) & tree)
    return frozenset(support | _asserting_files(modules, callers, tree) | seen)


def _observed_assertions(
    start: StartModules, callers: dict[str, str], imported: set[str]
) -> set[str]:
    """The files of `imported` (the work tree's files the start's run imported, in its tree)
    that are modules of assertions alone (`StartModules.assertions`) one of whose assertion
    functions, or a module-level name bound to one (`assert_alike = _alike`), one of `callers`
    (path to text) names (`imports.names`: a name, an attribute, a string), but a name they
    expect to raise (`imports.expected_to_raise`: round 38's validator, the code under test):
    the tests' assertions, reached however the import was spelled (round 39: `__import__("checks")`,
    `importlib`, `sys.modules[...]`, a re-export under `if`). Test files and the callers
    aside. What was imported was observed; which function the tests call is read from the
    callers' text, not run."""
    named = frozenset().union(*(imports.names(text) for text in callers.values()))
    named -= {name for text in callers.values() for _, _, name in imports.expected_to_raise(text)}
    files = {p for p in imported if p.endswith(".py") and p not in callers and not is_test_file(p)}
    return {path for path in _defining(start, files, named) if _names_assertion(start, path, named)}


def _defining(start: StartModules, files: set[str], named: frozenset[str]) -> set[str]:
    """The files of `files` whose text at the start may bind one of `named` at its top level
    (`def assert_alike(`, `assert_alike = _alike`), asked of one `git grep` over the start
    commit, so that only those are read (a project's thousand imported modules are not each
    read from git); all of `files` where git fails."""
    words = "|".join(sorted(n for n in named if n.isidentifier()))
    if not files or not words:
        return set()
    done = git.completed(
        start.repo,
        "grep",
        "-l",
        "-z",
        "-E",
        "-e",
        rf"^(async +)?def +({words}) *\(",
        "-e",
        rf"^({words}) *[:=]",
        start.start,
        "--",
        *(f":(literal){f}" for f in sorted(files)),
    )
    if done.returncode > 1:
        return files
    prefix = f"{start.start}:"
    return {name.removeprefix(prefix) for name in done.stdout.split("\0") if name} & files


def _names_assertion(start: StartModules, path: str, named: frozenset[str]) -> bool:
    """Whether `path` is a module of assertions alone one of whose assertion functions, or a
    module-level name bound to one (`imports.aliases`), is among `named`."""
    asserting = start.assertions(path)
    return bool(asserting) and bool(named & imports.aliases(start.text(path), asserting))


def _imported_support(
    start: StartModules, texts: dict[str, str], tree: set[str], check: supportfiles.Check
) -> dict[str, str]:
    """The files of the start commit (`start`'s, `tree`: its paths) that the test files of
    `texts` (path to its text) lean on, each with its text: a file they refer to by a name
    they imported (`imports.imported_references`: `from tests_helpers import Base`) that is
    test support by its text (`changes.supports_tests`), or that defines the name, followed
    through the modules that hand it on (`definition`: support/__init__.py's `from
    support.base import Checks`, round 40), those with it where they only hand names on; a
    module of data alone whose value they import and no other file of the code imports
    (`supportfiles.data`, `supportfiles.tests_data`: cases.py's `CASES`, the tests'
    expectations, round 40), or of anything where no test's body refers to it
    (`supportfiles.made_at_collection`: cases.py's `cases()`, round 41); and the modules
    their `pytest_plugins`, or their conftests', name (`supportfiles.plugins`, round 40), and
    those pytest loads by `-p` (`supportfiles.loaded`, `check`'s, round 41). A pytest test's
    helper base, whose assert methods the deciding check must run as the start had them
    (round 38)."""
    tests = {path: text for path, text in texts.items() if is_test_file(path)}
    files, data = _followed(start, _reached(tests, tree), tree, _called(tests, tree, start))
    files |= supportfiles.tests_data(start.repo, start.start, data, tree, start.text, module_file)
    by_p = supportfiles.loaded(check, tree, start.text, module_file) if tests else set()
    files |= supportfiles.plugins(tests, tree, start.text, module_file, by_p)
    kept = (f for f in files - texts.keys() if not is_test_file(f))
    return {file: text for file in kept if (text := start.text(file))}


def _reached(tests: dict[str, str], tree: set[str]) -> set[tuple[str, str]]:
    """The (module file of `tree`, name) of each name the files `tests` (path to text) refer
    to by an import (`imports.imported_references`)."""
    return {
        (found, name)
        for path, text in tests.items()
        for level, module, name in imports.imported_references(text)
        if (found := module_file(path, level, module, tree)) is not None
    }


def _called(tests: dict[str, str], tree: set[str], start: StartModules) -> set[str]:
    """The files defining a name the files `tests` (path to text) refer to inside a function's
    body (`supportfiles.in_bodies`), followed through the modules that hand it on
    (`definition`), and the module files those references name: the code the tests call."""
    found: set[str] = set()
    for path, text in tests.items():
        for level, module, name in supportfiles.in_bodies(text):
            if (file := module_file(path, level, module, tree)) is not None:
                chain, _ = definition(file, name, tree, start)
                found.update([file, *chain[-1:]])
    return found


def _followed(
    start: StartModules, reached: set[tuple[str, str]], tree: set[str], called: set[str]
) -> tuple[set[str], dict[str, list[str]]]:
    """The files of test support the tests' references `reached` (module file, name) lead to
    (`_imported_support`: the file that defines the name, where the name is a class of test
    support, `changes.defines_support`, not where another class of its file is one), and the
    modules of data alone they lead to, or modules no test's body refers to (`called`:
    `supportfiles.made_at_collection`), each with the modules on the way that only hand the
    name on."""
    files = {found for found, _ in reached if sides.supports_tests(start.text(found))}
    data: dict[str, list[str]] = {}
    for found, name in reached:
        chain, defined = definition(found, name, tree, start)
        if not chain:
            continue
        way = [f for f in chain[:-1] if start.top(f).only_imports]
        if sides.defines_support(start.text(chain[-1]), defined):
            files.update([chain[-1], *way])
        elif supportfiles.data(
            chain[-1], defined, start.top(chain[-1])
        ) or supportfiles.made_at_collection(chain[-1], called):
            data.setdefault(chain[-1], []).extend(way)
    return files, data


def _start_texts(repo: Path, start: str, files: Iterable[str]) -> tuple[dict[str, str], set[str]]:
    """The text at commit `start` of each Python file of `files` its tree holds (not empty),
    and that tree's paths (empty where `files` names no Python file: the tree not read)."""
    python = {f for f in files if f.endswith(".py")}
    tree = set(git.names(repo, "ls-tree", "-r", "--name-only", start)) if python else set()
    texts = {path: text for path in python & tree if (text := revtext.text(repo, start, path))}
    return texts, tree


def _asserting_files(start: StartModules, callers: dict[str, str], tree: set[str]) -> set[str]:
    """The files of the start commit (`start`'s, `tree`: its paths) defining a module-level
    function that only asserts (`fixbot.tamper.changes.asserting`) which one of `callers` (path
    to its text: the failing tests' files and their helper bases) refers to by a name it
    imported from the work tree, however (`imports.imported_references`: a call,
    `staticmethod(f)`, a star import; `module_file`), followed through the modules that only
    re-export it (`definition`: checks/__init__.py's `from checks.asserts import
    assert_alike`), those modules with it (each file read and parsed once: `StartModules`): the
    tests' assertions, wherever they are written (round 36, #39: checks.py's `assert_alike`,
    which tests_helpers.py's classes call, emptied; round 37). Test files aside (already the
    tests'), and a file that also holds other code (`changes.assertions_only`: app.py's
    `validate(x)`, which only asserts, beside the code under test; pinned whole, the honest fix
    would be undone for the deciding check), and a name a caller expects to raise
    (`imports.expected_to_raise`: `assertRaises(AssertionError, check_even, 3)`, round 38's
    false alarm: the function the tests test, not one they assert with; emptied, that
    expectation fails the start's tests itself)."""
    held: set[str] = set()
    for path, caller in callers.items():
        tested = imports.expected_to_raise(caller)
        for level, module, name in imports.imported_references(caller) - tested:
            found = module_file(path, level, module, tree)
            files = asserted(found, name, tree, start) if found is not None else []
            held.update(f for f in files if f not in callers and not is_test_file(f))
    return held


def pinned(repo: Path, start: str, verified: str, files: frozenset[str]) -> list[str]:
    """The paths the fix (`start` to tree `verified`) changed that belong to the tests
    (`fixbot.tamper.changes.of_the_tests`; `files` are the check command's own files and the
    tests' modules, `helpers`), the files it added that `import` finds before one of those
    modules (`_shadow`), and the Rust files it only added tests to
    (`fixbot.tamper.rusttests.added_only`)."""
    found = changes(repo, start, verified)
    return [
        c.path
        for c in found
        if of_the_tests(c, files) or rusttests.added_only(c) or _shadow(c, files)
    ]


def _shadow(change: Change, files: frozenset[str]) -> bool:
    """Whether the fix added `change`'s file where `import` finds it instead of a module of the
    tests' in `files` (`fixbot.tamper.imports.shadows`: checks/__init__.py beside a pinned
    checks.py, round 37): held to the start's tree, where it is absent."""
    return change.old is None and imports.shadows(change.path, files)


def lets_tests_run_on(repo: Path, start: str, verified: str, paths: Iterable[str]) -> bool:
    """Whether one of `paths` the fix (`start` to tree `verified`) changed only ignores a
    dependency's warning (`fixbot.tamper.changes.lets_tests_run_on`)."""
    wanted, names = set(paths), modules(repo, verified)
    found = [c for c in changes(repo, start, verified) if c.path in wanted]
    return any(sides.lets_tests_run_on(change, names) for change in found)


def original_tree(
    repo: Path, tree: str, start: str, paths: Iterable[str], files: frozenset[str] = frozenset()
) -> str:
    """Tree `tree` with `paths` as commit `start` has them (removed where `start` has none); a
    Rust file of the code the fix only added tests to keeps the fix's code with the start's
    test regions (`fixbot.tamper.rusttests.added_only`; a file of the tests, `files` the check
    command's own among them, is put back whole)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index"), **commits.LITERAL}
        git.run(repo, "read-tree", tree, env=env)
        for path in paths:
            if _regions_put_back(repo, tree, start, path, files, env):
                continue
            entry = git.run(repo, "ls-tree", start, "--", path, env=commits.LITERAL)
            if entry:
                mode, _, rest = entry.partition(" ")
                sha = rest.split("\t", 1)[0].split(" ")[-1]
                git.run(
                    repo, "update-index", "--add", "--cacheinfo", f"{mode},{sha},{path}", env=env
                )
            else:
                git.run(repo, "update-index", "--force-remove", "--", path, env=env)
        return git.run(repo, "write-tree", env=env)


def _regions_put_back(
    repo: Path, tree: str, start: str, path: str, files: frozenset[str], env: dict[str, str]
) -> bool:
    """Write into the index of `env` the text of `path` in `tree` with the start's Rust test
    regions; False (nothing written) where the path is the tests' or the fix did more to its
    tests than add some."""
    if not rusttests.program_file(path):
        return False
    change = Change(path, revtext.text(repo, start, path), revtext.text(repo, tree, path))
    text = None if of_the_tests(change, files) else rusttests.added_only(change)
    entry = git.run(repo, "ls-tree", tree, "--", path, env=commits.LITERAL)
    if text is None or not entry:
        return False
    done = git.completed(repo, "hash-object", "-w", "--stdin", stdin=text)
    if done.returncode != 0:
        raise git.GitError(f"git hash-object failed: {done.stderr.strip()}")
    blob = done.stdout.strip()
    mode = entry.partition(" ")[0]
    git.run(repo, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}", env=env)
    return True


def drift(repo: Path, verified: str, now: str) -> list[str]:
    """The paths whose content differs between tree `verified` and tree `now` ([] when equal)."""
    if verified == now:
        return []
    out = git.run(repo, "diff-tree", "-r", "-z", "--name-only", "--no-renames", verified, now)
    return [p for p in out.split("\0") if p]


def committed_drift(repo: Path, verified: str) -> list[str]:
    """The paths whose content differs between tree `verified` and the commit at HEAD."""
    return drift(repo, verified, git.run(repo, "rev-parse", "HEAD^{tree}"))


def allowed_note(cheats: list[str]) -> str:
    """The report's and commit message's line about a fix that changed the tests, published
    because the workflow allows test edits."""
    return "suspected test tampering, published because allow-test-edits is set: " + "; ".join(
        cheats
    )
