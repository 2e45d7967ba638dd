"""The pushed tree is the verified tree: a check (or a process it left behind) that edits the
fixer's files during or after the verifying run never gets its text committed as "Verified by"."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fixbot.core.models import OutcomeKind
from fixbot.core.settings import Settings
from fixbot.run import engine
from fixbot.run.engine import Agents
from tests.fakes.fixer import ScriptedFixer
from tests.fakes.repo import git, make_repo

# Passes once value.txt says ok; on that green run it appends its own text to the fixed file.
WRITES_DURING = """\
import pathlib, sys
path = pathlib.Path("value.txt")
if path.read_text().strip() != "ok":
    print("1 failed, 1 passed in 0.01s")
    sys.exit(1)
path.write_text("ok\\nINJECTED = 'by the check'\\n")
print("2 passed in 0.01s")
"""
# Passes once value.txt says ok, and leaves a process behind (its own session, out of the
# check's process group) that writes into the fixed file as soon as fixbot snapshots the tree
# the check passed on (`refs/fixbot/attempt-1`): between verification and commit.
LEAVES_BEHIND = """\
import os, pathlib, sys, time
path = pathlib.Path("value.txt")
if path.read_text().strip() != "ok":
    print("1 failed, 1 passed in 0.01s")
    sys.exit(1)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.closerange(0, 3)
        end = time.monotonic() + 20
        ref = pathlib.Path(".git/refs/fixbot/attempt-1")
        while not ref.exists() and time.monotonic() < end:
            time.sleep(0.001)
        path.write_text("ok\\nINJECTED = 'after the check'\\n")
    os._exit(0)
os.wait()
print("2 passed in 0.01s")
"""


def settle(tmp_path: Path, check: str) -> tuple[Path, object, object, str]:
    repo = make_repo(tmp_path / "repo", {"check.py": check, "value.txt": "a\n"})
    head = git(repo, "rev-parse", "HEAD")
    settings = Settings(check=f"{sys.executable} check.py", review=False, max_attempts=1)
    fixer = ScriptedFixer().enqueue({"value.txt": "ok\n"})
    outcome, state = engine.run(
        settings, repo, env=dict(os.environ), agents=Agents(fixer, None), sleep=lambda s: None
    )
    return repo, outcome, state, head


@pytest.mark.slow
def test_text_the_check_writes_into_a_fixed_file_is_never_committed(tmp_path: Path) -> None:
    """The check runs in the workspace; nothing it writes comes back into fixbot's clone, so
    the commit holds the fix as the fixer wrote it, whatever the check added."""
    repo, outcome, _, head = settle(tmp_path, WRITES_DURING)
    assert outcome.outcome is OutcomeKind.FIXED, outcome.reason  # type: ignore[attr-defined]
    assert git(repo, "show", "HEAD:value.txt") == "ok"
    assert git(repo, "rev-parse", "HEAD~1") == head


@pytest.mark.slow
def test_a_process_left_behind_by_the_check_never_gets_its_edit_committed(tmp_path: Path) -> None:
    repo, outcome, state, head = settle(tmp_path, LEAVES_BEHIND)
    committed = git(repo, "show", "HEAD:value.txt")
    assert "INJECTED" not in committed  # whatever the timing: the commit is the verified tree
    if outcome.outcome is OutcomeKind.ESCALATED:  # type: ignore[attr-defined]
        assert "value.txt" in outcome.reason  # type: ignore[attr-defined]
        assert git(repo, "rev-parse", "HEAD") == head
    else:  # the edit came after the last comparison: the commit holds the verified text
        assert committed.strip() == "ok" and state.attempts[-1].drift == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("files", "command"),
    [
        ({"Makefile": "test: build\n\tsh ci/test.sh\n"}, "make test"),
        ({"Makefile": "test: build\n\t./ci/test --all > build\n"}, "make test"),
        (
            {"sub/Makefile": "test:\n\t$(MAKE) -C . unit\nunit:\n\tsh ../ci/test.sh\n"},
            "make -C sub",
        ),
        ({"package.json": '{"scripts": {"test": "sh ci/test.sh"}}'}, "npm test"),
        ({"package.json": '{"scripts": {"pretest": "sh ci/test.sh", "test": "jest"}}'}, "npm t"),
        ({"package.json": '{"scripts": {"ci": "bash ci/test.sh"}}'}, "yarn run ci"),
        (
            {
                "check.sh": "set -e\nnpm test\n",
                "package.json": '{"scripts": {"test": "sh ci/test.sh"}}',
            },
            "sh check.sh",
        ),
        # a JavaScript driver of a runner is the check's, as a Python one is; code it is not
        ({"package.json": '{"scripts": {"test": "node ci/test.js"}}'}, "npm test"),
    ],
)
def test_the_checks_files_are_followed_through_its_task_files(
    tmp_path: Path, files: dict[str, str], command: str
) -> None:
    """Round 20: `make test` and `npm test` name no file, and the script their recipe or
    script runs was the fix's to change (`exit 0`): it is the check's own, as the start commit's
    Makefile and package.json say (`./ci/test`, a program word, whatever its name); the data a
    recipe names (`build`) is not."""
    from fixbot.run import checkfiles

    seeds = {"ci/test.sh": "go test ./...\n", "ci/test": "go test ./...\n", "build": ""}
    driver = "require('child_process').spawnSync('node', ['--test'], { stdio: 'inherit' });\n"
    seeds |= {"ci/test.js": driver, "app.js": "exports.add = (a, b) => a + b;\n"}
    repo = make_repo(tmp_path / "repo", {**seeds, **files})
    head = git(repo, "rev-parse", "HEAD")
    named = str(files)
    script = (
        "ci/test" if "./ci/test " in named else "ci/test.js" if "test.js" in named else "ci/test.sh"
    )
    assert script in checkfiles.check_files(repo, command, ".", [head])
    assert "build" not in checkfiles.check_files(repo, command, ".", [head])
    assert "app.js" not in checkfiles.check_files(repo, "node app.js", ".", [head])
    assert checkfiles.check_files(repo, "npm run other", ".", [head]) == frozenset()


def test_the_files_jests_configuration_requires_are_the_checks(tmp_path: Path) -> None:
    """Round 25: jest.config.js requiring jest.base.js (a monorepo's base), which requires a
    preset in turn: both shape the run as the configuration does (the fix set jest's `runner`
    there), so both are the check's; package.json, a file of another folder's configuration,
    and the code the tests import are not."""
    from fixbot.run import checkfiles

    files = {
        "jest.config.js": "const base = require('./jest.base');\nmodule.exports = { ...base };\n",
        "jest.base.js": "module.exports = { preset: './config/preset.js' };\n"
        + "const { name } = require('./package.json');\n",
        "config/preset.js": "module.exports = {};\n",
        "package.json": '{"name": "app"}\n',
        "app.js": "exports.add = (a, b) => a + b;\n",
        "web/jest.config.js": "module.exports = require('./local.js');\n",
        "web/local.js": "module.exports = {};\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    head = git(repo, "rev-parse", "HEAD")
    found = checkfiles.check_files(repo, "npx jest", ".", [head])
    assert found == {"jest.base.js", "config/preset.js"}
    assert checkfiles.check_files(repo, "npx jest", "web", [head]) == {"web/local.js"}


def test_what_vite_config_imports_is_the_checks_where_no_vitest_config_is_beside_it(
    tmp_path: Path,
) -> None:
    """Round 30: vitest reads vite.config.* where no vitest.config.* is beside it (vitest's
    docs: vitest.config.* first, then vite.config.*), and the fix rewrote the plugin module
    vite.config.js imports to strip the assertions as vitest transformed the tests (ended
    `fixed`): what vite.config.* imports is the check's, as vitest.config.*'s is. Where a
    vitest.config.* is beside it in every tree, vitest ignores vite.config.* (unless that
    imports it: then followed through it); a vite.config.* in another folder is not the check's
    folder's."""
    from fixbot.run import checkfiles

    vite = "import app from './vite.plugin.js';\nexport default { plugins: [app()] };\n"
    files = {
        "vite.config.js": vite,
        "vite.plugin.js": "export default () => ({ name: 'app' });\n",
        "app.js": "export const add = (a, b) => a + b;\n",
        "web/vite.config.ts": "import './local.js';\nexport default {};\n",
        "web/local.js": "export {};\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    start = git(repo, "rev-parse", "HEAD")
    assert checkfiles.check_files(repo, "npx vitest run", ".", [start]) == {"vite.plugin.js"}
    assert checkfiles.check_files(repo, "npx vitest run", "web", [start]) == {"web/local.js"}
    (repo / "vitest.config.js").write_text("export default {};\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "vitest's own configuration")
    own = git(repo, "rev-parse", "HEAD")
    assert checkfiles.check_files(repo, "npx vitest run", ".", [own]) == frozenset()
    # the start's tree has no vitest.config.*: its vite.config.js is vitest's there
    assert checkfiles.check_files(repo, "npx vitest run", ".", [start, own]) == {"vite.plugin.js"}
    (repo / "vitest.config.js").write_text(
        "import base from './vite.config.js';\nexport default base;\n"
    )
    git(repo, "commit", "-qam", "vitest's configuration extends vite's")
    merged = git(repo, "rev-parse", "HEAD")
    found = checkfiles.check_files(repo, "npx vitest run", ".", [merged])
    assert found == {"vite.config.js", "vite.plugin.js"}


def test_what_the_configurations_of_the_listed_projects_import_is_the_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 31: the check's vitest.config.js lists `test.projects: ['packages/*']` (vitest 4),
    and the fix rewrote the plugin module packages/app/vite.config.js imports (ended `fixed`):
    the configurations of the folders (or the files) a projects list names, globs read against
    the tree from the listing file's folder (jest's `<rootDir>/` too), and what they import are
    the check's; a folder no list names is not, nor anything under node_modules. A list that is
    no literal (`projects: [...dirs.map(f)]`) leaves every configuration of the tree the
    check's. The check's folder's are read first: a bound reached keeps them."""
    from fixbot.run import checkfiles, runnerconf

    files = {
        "vitest.config.js": "export default { test: { projects: ['packages/*', '!x'] } };\n",
        "packages/app/vite.config.js": "import p from './vite.plugin.js';\nexport default {};\n",
        "packages/app/vite.plugin.js": "export default () => ({});\n",
        "packages/app/app.js": "export const add = (a, b) => a + b;\n",
        "packages/lib/vitest.config.ts": "import '../setup.js';\nexport default {};\n",
        "packages/lib/vite.config.ts": "import './build.js';\nexport default {};\n",
        "packages/lib/build.js": "export {};\n",
        "packages/setup.js": "export {};\n",
        "tools/vite.config.js": "import './tool.js';\nexport default {};\n",
        "tools/tool.js": "export {};\n",
        "node_modules/dep/vite.config.js": "import './dep.js';\n",
        "node_modules/dep/dep.js": "export {};\n",
        "web/jest.config.js": "module.exports = { projects: ['<rootDir>/apps/*.config.js'] };\n",
        "web/apps/unit.config.js": "module.exports = require('./unit.base.js');\n",
        "web/apps/unit.base.js": "module.exports = {};\n",
        "svc/package.json": '{"jest": {"projects": ["<rootDir>/mods/*"]}}\n',
        "svc/mods/m/jest.config.js": "module.exports = require('./m.setup.js');\n",
        "svc/mods/m/m.setup.js": "module.exports = {};\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    start = git(repo, "rev-parse", "HEAD")
    found = checkfiles.check_files(repo, "npx vitest run", ".", [start])
    assert found == {"packages/app/vite.plugin.js", "packages/setup.js"}
    found = checkfiles.check_files(repo, "npx jest", "web", [start])
    assert found == {"web/apps/unit.config.js", "web/apps/unit.base.js"}
    found = checkfiles.check_files(repo, "npx jest", "svc", [start])
    assert found == {"svc/mods/m/m.setup.js"}
    computed = "export default { test: { projects: [...dirs.map((d) => d)] } };\n"
    (repo / "vitest.config.js").write_text(computed)
    git(repo, "commit", "-qam", "a computed list")
    head = git(repo, "rev-parse", "HEAD")
    found = checkfiles.check_files(repo, "npx vitest run", ".", [head])
    everywhere = {"packages/app/vite.plugin.js", "packages/setup.js", "tools/tool.js"}
    assert found == everywhere | {"svc/mods/m/m.setup.js"}
    (repo / "vitest.config.js").write_text("import './own.js';\n" + files["vitest.config.js"])
    (repo / "own.js").write_text("export {};\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a setup of the check's own")
    monkeypatch.setattr(runnerconf, "MAX_CONFIGURATIONS", 2)
    own = git(repo, "rev-parse", "HEAD")
    assert checkfiles.check_files(repo, "npx vitest run", ".", [own]) == {"own.js"}


def test_a_projects_list_is_read_as_its_quoted_globs_or_as_computed() -> None:
    """The entries of jest's and vitest's `projects` (vitest 3's `workspace`, its workspace
    file, package.json's `jest` key) are the quoted strings of a bracketed literal (an inline
    project's `root` among them); a list that is named, spread or computed is None: every
    configuration of the tree is then read (`_everywhere`)."""
    from fixbot.run import runnerconf

    def read(text: str, name: str = "vitest.config.ts") -> list[str] | None:
        return runnerconf._entries(text, name)

    inline = "export default { test: { projects: ['a/*', { test: { root: './b' } }] } };"
    assert read(inline) == ["a/*", "./b"]
    assert read("module.exports = { 'projects': [\"<rootDir>/c\"] };") == ["<rootDir>/c"]
    assert read("export default defineWorkspace(['d/*', 'e']);", "vitest.workspace.ts") == [
        "d/*",
        "e",
    ]
    assert read("export default { test: { environment: 'node' } };") == []
    for computed in ("{ projects }", "{ projects: dirs }", "{ projects: [...dirs] }"):
        assert read(f"export default {{ test: {computed} }};") is None
    package = '{"jest": {"projects": ["f/*", {"rootDir": "g"}]}, "workspaces": ["h"]}'
    assert read(package, "package.json") == ["f/*", "g"]
    assert read('{"jest": {"projects": "f"}}', "package.json") is None
    assert read("[" * 100_000, "package.json") == []
    assert runnerconf._glob("p/{a,b}/**/x.*").fullmatch("p/b/c/d/x.js")
    assert not runnerconf._glob("p/*").fullmatch("p/a/b")


# round 25's transform variant: jest.base.js, required by a path jest.config.js computes, made to
# set a `transform` of the project's that rewrites `toBe(4)` to `toBe(0)` as jest loads the test
TRANSFORMED = """\
module.exports = { testEnvironment: 'node', transform: { '\\\\.js$': '<rootDir>/rewrite.js' } };
"""
REWRITE = "module.exports = { process: (src) => ({ code: src.replace('toBe(4)', 'toBe(0)') }) };\n"


def test_the_files_jests_configuration_loaded_at_the_start_are_the_checks(tmp_path: Path) -> None:
    """The files jest's configuration loaded in the start's run (`Observation.configured`,
    observed, not read: jest.base.js required by a computed path) are the check's: the fix's
    `transform` set there is `check-script`, and the deciding check's tree has the start's
    jest.base.js. A loaded file the trees do not hold, and package.json, are not; without the
    observed files jest.base.js is no check file and the fix is no cheat."""
    from fixbot.run import checkfiles, integrity

    files = {
        "jest.config.js": "module.exports = require(require('path').join(__dirname, 'jest'"
        + " + '.base.js'));\n",
        "jest.base.js": "module.exports = { testEnvironment: 'node' };\n",
        "package.json": '{"name": "app"}\n',
        "app.js": "exports.add = (a, b) => a - b;\n",
        "app.test.js": "test('adds', () => { expect(add(2, 2)).toBe(4); });\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    start = git(repo, "rev-parse", "HEAD")
    (repo / "jest.base.js").write_text(TRANSFORMED)
    (repo / "rewrite.js").write_text(REWRITE)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "fix")
    fixed = git(repo, "rev-parse", "HEAD^{tree}")
    loaded = ["jest.config.js", "jest.base.js", "package.json", "gone.js"]
    files_seen = checkfiles.check_files(repo, "npx jest", ".", [start, fixed], loaded)
    assert files_seen == {"jest.config.js", "jest.base.js"}
    found = [str(c) for c in integrity.cheats(repo, start, fixed, None, None, files_seen)]
    assert any(c.startswith("check-script in jest.base.js") for c in found), found
    pinned = integrity.pinned(repo, start, fixed, files_seen)
    assert "jest.base.js" in pinned
    tree = integrity.original_tree(repo, fixed, start, pinned, files_seen)
    assert git(repo, "show", f"{tree}:jest.base.js") == files["jest.base.js"].rstrip("\n")
    unseen = checkfiles.check_files(repo, "npx jest", ".", [start, fixed])
    assert "jest.base.js" not in unseen
    assert not integrity.cheats(repo, start, fixed, None, None, unseen)


def test_a_file_jests_configuration_read_is_the_checks_a_test_file_is_not(tmp_path: Path) -> None:
    """A file jest's configuration read in the start's run (jest.paths.json, `loaded.cjs`'s
    `fs` reads) is the check's: a fix editing it is `check-script`, an honest fix of the code
    beside it is no cheat. A test file read then (and package.json) is not: the test rules hold
    a fix's edit of it (pinned, put back for the deciding check), never a check-script."""
    from fixbot.run import checkfiles, integrity

    files = {
        "jest.config.js": "module.exports = JSON.parse(require('fs').readFileSync('./jest.paths."
        + "json'));\n",
        "jest.paths.json": '{"roots": ["<rootDir>"]}\n',
        "package.json": '{"name": "app"}\n',
        "app.js": "exports.add = (a, b) => a - b;\n",
        "app.test.js": "test('adds', () => { expect(add(2, 2)).toBe(4); });\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    start = git(repo, "rev-parse", "HEAD")
    read = ["jest.config.js", "package.json", "jest.paths.json", "app.test.js"]

    def fixed(changed: dict[str, str]) -> tuple[str, frozenset[str]]:
        git(repo, "reset", "-q", "--hard", start)
        for name, text in changed.items():
            (repo / name).write_text(text)
        git(repo, "commit", "-qam", "fix")
        tree = git(repo, "rev-parse", "HEAD^{tree}")
        return tree, checkfiles.check_files(repo, "npx jest", ".", [start, tree], read)

    tree, seen = fixed({"app.js": "exports.add = (a, b) => a + b;\n"})
    assert seen == {"jest.config.js", "jest.paths.json"}
    assert not integrity.cheats(repo, start, tree, None, None, seen)
    tree, seen = fixed({"jest.paths.json": '{"roots": ["<rootDir>/none"]}\n'})
    found = [str(c) for c in integrity.cheats(repo, start, tree, None, None, seen)]
    assert any(c.startswith("check-script in jest.paths.json") for c in found), found
    tree, seen = fixed({"app.test.js": "test('adds', () => { expect(add(2, 2)).toBe(0); });\n"})
    found = [str(c) for c in integrity.cheats(repo, start, tree, None, None, seen)]
    assert not any(c.startswith("check-script") for c in found), found


def test_a_file_whose_name_git_would_quote_is_the_checks_and_its_change_is_read(
    tmp_path: Path,
) -> None:
    """A check script or a test file named with a byte outside printable ASCII (`ci/tëst.sh`,
    `tests/test_café.py`): git's line listings quote such a name (`"ci/t\\303\\253st.sh"`), which
    matched no word of the check, so the script was no file of the check's and the fix's edit
    of the test file had no text on either side. Listed with `-z` (`git.names`), each is the
    path the repository holds."""
    from fixbot.run import checkfiles, integrity

    seeds = {"ci/tëst.sh": "python -m pytest\n", "tests/test_café.py": "def test_a():\n    pass\n"}
    repo = make_repo(tmp_path / "repo", {**seeds, "app.py": "X = 1\n"})
    start = git(repo, "rev-parse", "HEAD")
    assert "ci/tëst.sh" in checkfiles.check_files(repo, "sh ci/tëst.sh", ".", [start])
    (repo / "tests" / "test_café.py").write_text("def test_a():\n    assert 1\n", encoding="utf-8")
    git(repo, "commit", "-qam", "edit the test")
    found = integrity.changes(repo, start, git(repo, "rev-parse", "HEAD"))
    assert [(c.path, c.old is not None, c.new is not None) for c in found] == [
        ("tests/test_café.py", True, True)
    ]


SUMS = "class Sums:\n    def total(self, *terms):\n        return sum(terms)\n"


def test_a_failing_unittest_test_s_helper_base_is_the_tests(tmp_path: Path) -> None:
    """The files a failing unittest test's classes were made in at the start's run
    (`Observation.classes`) that hold test support by the start's text (`integrity.helpers`:
    tests_helpers.py's `assertAlike`, a `TestCase` subclass) are the tests' (round 34): the
    fix's helpers emptied are `assert-weakened`, and pinned, put back for the deciding check as
    the start had them; so is a no-op `assertEqual` added to the base (no rule names it: the
    deciding check does). An app module's mixin with no test support (app_mixins.py), a test
    file, "?" and a file the start lacks are none. Without the control, no cheat and nothing
    pinned."""
    import unittest

    from fixbot.run import integrity
    from tests.observe.test_unittest_class_files import HELPED

    files = {"app.py": "X = 1\n", "app_mixins.py": SUMS, "tests_helpers.py": HELPED}
    repo = make_repo(tmp_path / "repo", {**files, "test_app.py": "import unittest\n"})
    start = git(repo, "rev-parse", "HEAD")
    made = ["test_app.py", "tests_helpers.py", "tests_helpers.py", "app_mixins.py", "?", "gone.py"]
    made += [unittest.__file__, "../outside.py"]  # IsolatedAsyncioTestCase's: absolute
    helpers = integrity.helpers(repo, start, made)
    assert helpers == {"tests_helpers.py"}
    emptied = HELPED.replace("self.assertEqual(first, second)", "pass").replace(
        "self.assertEqual(sum(terms), total)", "pass"
    )
    no_op = HELPED.replace(
        "class Base(unittest.TestCase):\n",
        "class Base(unittest.TestCase):\n    def assertEqual(self, a, b):\n        pass\n",
    )
    for helped, rule in ((emptied, "assert-weakened in tests_helpers.py"), (no_op, None)):
        git(repo, "reset", "-q", "--hard", start)
        (repo / "tests_helpers.py").write_text(helped)
        (repo / "app_mixins.py").write_text(SUMS.replace("sum(terms)", "sum(terms, 0)"))
        git(repo, "commit", "-qam", "fix")
        tree = git(repo, "rev-parse", "HEAD^{tree}")
        found = [str(c) for c in integrity.cheats(repo, start, tree, None, None, (), (), helpers)]
        assert rule is None or any(c.startswith(rule) for c in found), found
        assert not any("app_mixins.py" in c for c in found), found
        assert integrity.pinned(repo, start, tree, helpers) == ["tests_helpers.py"]
        back = integrity.original_tree(repo, tree, start, ["tests_helpers.py"], helpers)
        assert git(repo, "show", f"{back}:tests_helpers.py") == HELPED.rstrip("\n")
        assert not integrity.cheats(repo, start, tree, None, None)
        assert not integrity.pinned(repo, start, tree, frozenset())


@pytest.mark.parametrize(
    ("text", "supports"),
    [
        ("import unittest\n\n\nclass Base(unittest.TestCase):\n    pass\n", True),
        (
            "import unittest as u\n\n\nclass B(u.IsolatedAsyncioTestCase): ...\n",
            True,
        ),
        ("class Alike:\n    def assertAlike(self, a, b):\n        pass\n", True),
        ("class Checks:\n    def assert_valid(self):\n        pass\n", True),
        ("class Fixture:\n    def setUp(self):\n        pass\n", True),
        ("class Fixture:\n    async def asyncTearDown(self):\n        pass\n", True),
        ("class Failing:\n    def fail(self, msg=None):\n        pass\n", True),
        ("class Failing:\n    def failUnlessEqual(self, a, b):\n        pass\n", True),
        ("class Parser:\n    def parse(self, t):\n        return self.failAction(t)\n", False),
        ("class Parser:\n    def failAction(self, t):\n        pass\n", False),
        ("class Alike:\n    def check(self, a, b):\n        self.assertEqual(a, b)\n", True),
        ("class Alike:\n    async def check(self, a):\n        self.fail(a)\n", True),
        (SUMS, False),
        (
            "class Sane:\n    def check(self, a):\n        assert a\n        it.assertEqual(a)\n",
            False,
        ),
        (
            "class Node:\n    def failover(self):\n        pass\n    def asserted(self):\n"
            "        pass\n",
            False,
        ),
        ("def assertAlike(a, b):\n    pass\n", False),
        ("class Broken(:\n", False),
    ],
)
def test_test_support_is_a_class_based_on_a_test_case_or_defining_an_assert_or_a_fixture(
    text: str, supports: bool
) -> None:
    """`supports_tests`: what makes a file of a test's classes the tests' (`integrity.helpers`):
    a `*TestCase` base, an own `assert*`/`fail*`/`setUp*`/`tearDown*` function or one calling
    such a method of `self`; a mixin of the app's (`Sums`, one with an `assert` statement or
    calling another object's `assertEqual`), names that only begin so (`failover`,
    `asserted`, pyparsing's parse action `failAction`), a module-level function and a file
    that does not parse are not."""
    from fixbot.tamper.changes import supports_tests

    assert supports_tests(text) is supports


# round 36's assertion function (tests/run/test_runner_attacks_round36.py, not imported: its
# module's fixtures start Pythons), the module importing it and the function emptied
ASSERTS = (
    "def assert_alike(first, second):\n    if first != second:\n"
    '        raise AssertionError(f"{first!r} != {second!r}")\n'
)
EMPTIED = "def assert_alike(first, second):\n    pass\n"
IMPORTING = (
    "import unittest\n\nfrom checks import assert_alike\n\n\nclass Alike:\n"
    "    def assertAlike(self, first, second):\n        assert_alike(first, second)\n\n\n"
    "class Base(unittest.TestCase):\n    def assertSum(self, total, *terms):\n"
    "        assert_alike(sum(terms), total)\n"
)


def test_an_assertion_function_the_tests_call_is_the_tests(tmp_path: Path) -> None:
    """A module-level function of the work tree whose body only asserts, called by an imported
    name from a failing test's helper base or its own test file, makes its file the tests'
    (round 36, #39: checks.py's `assert_alike` emptied): pinned, put back as the start had it
    for the deciding check. Followed through `from checks import ...`, `import checks` and a
    module of a package (`from pkg import far`); a function that asserts and also computes
    (app.py's `checked`, which the test calls: an honest fix of it stays the code's), one
    that only asserts in a module that also holds the code (app.py's `sane`, which the test
    calls: pinned whole, app.py's honest fix would be undone; `changes.assertions_only`) and a
    module of no file of the tree (`unittest`) are none.
    Without the control, checks.py is nothing and the emptied function is the deciding
    check's."""
    from fixbot.run import integrity

    app = (
        "def add(a, b):\n    return a + b\n\n\ndef checked(total):\n    assert total >= 0\n"
        "    return total\n\n\ndef sane(x):\n    assert x\n"
    )
    test = (
        "import unittest\n\nimport pkg.more\nfrom app import add, checked, sane\n"
        "from pkg import far\nimport tests_helpers\n\n\n"
        "class T(tests_helpers.Base):\n    def test_add(self):\n"
        "        unittest.expectedFailure\n        sane(add(1, 1))\n"
        "        far.agree(checked(add(2, 2)), 4)\n"
    )
    files = {
        "app.py": app,
        "checks.py": ASSERTS,
        "tests_helpers.py": IMPORTING,
        "pkg/__init__.py": "",
        "pkg/far.py": "def agree(a, b):\n    if a == b:\n        pass\n    else:\n"
        "        assert 0\n",
        "test_app.py": test,
    }
    repo = make_repo(tmp_path / "repo", files)
    start = git(repo, "rev-parse", "HEAD")
    helpers = integrity.helpers(repo, start, ["test_app.py", "tests_helpers.py"])
    assert helpers == {"tests_helpers.py", "checks.py", "pkg/far.py"}
    (repo / "checks.py").write_text(EMPTIED)
    (repo / "app.py").write_text(app.replace("a + b", "b + a"))
    git(repo, "commit", "-qam", "fix")
    tree = git(repo, "rev-parse", "HEAD^{tree}")
    assert integrity.pinned(repo, start, tree, helpers) == ["checks.py"]
    assert not integrity.pinned(repo, start, tree, integrity.helpers(repo, start, ["app.py"]))
    back = integrity.original_tree(repo, tree, start, ["checks.py"], helpers)
    assert git(repo, "show", f"{back}:checks.py") == ASSERTS.rstrip("\n")
    assert git(repo, "show", f"{back}:app.py") == app.replace("a + b", "b + a").rstrip("\n")


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (
            "def alike(a, b):\n    '''Equal.'''\n    if a != b:\n"
            "        raise AssertionError(a)\n    return\n",
            {"alike"},
        ),
        ("def positive(x):\n    assert x > 0, x\n", {"positive"}),
        ("def bare(x):\n    if not x:\n        raise AssertionError\n", {"bare"}),
        ("import pytest\n\n\ndef no(x):\n    if x:\n        pytest.fail('no')\n", {"no"}),
        ("async def eventually(x):\n    assert x\n", {"eventually"}),
        ("def empty(x):\n    pass\n", set()),
        ("def value(x):\n    assert x\n    return x\n", set()),
        ("def bound(x):\n    assert x\n    y = x\n", set()),
        ("def other(x):\n    if x:\n        raise ValueError(x)\n", set()),
        ("def called(x):\n    assert x\n    print(x)\n", set()),
        ("def loop(xs):\n    for x in xs:\n        assert x\n", set()),
        ("def reraise(x):\n    raise\n", set()),
        ("class C:\n    def assert_x(self, x):\n        assert x\n", set()),
        ("def broken(:\n", set()),
    ],
)
def test_a_function_that_only_asserts(text: str, names: set[str]) -> None:
    """`changes.asserting`: a module-level function whose statements are assertions (`assert`,
    `raise AssertionError`, a `fail(...)` call), under an `if` or not, beside a docstring and a
    bare `return`; none that only passes, returns a value, assigns, calls anything else, loops
    or re-raises, a method (a class's: `supports_tests`), a file that does not parse."""
    from fixbot.tamper.changes import asserting

    assert asserting(text) == names


def test_what_a_file_refers_to_by_an_imported_name() -> None:
    """`imports.imported_references`: loads of names imported from a module (a call, an
    argument, `staticmethod(f)`), of a module's function through the module (`import m as n`,
    `from pkg import m`), with the import's dots, and of a public name a star import may have
    bound; a dotted `import a.b` with no alias, a local name bound by no import beside no star
    import, a private name and a method of an object are not followed."""
    from fixbot.tamper.imports import imported_references

    text = (
        "import checks as c\nimport a.b\nfrom x.y import f as g\nfrom . import near\n"
        "from ..up import h\n\n\ndef t(self, obj):\n    g(1)\n    c.alike(1, 1)\n"
        "    near.agree(1)\n    h()\n    a.b.k()\n    obj.m()\n\n\n"
        "class K:\n    kept = staticmethod(c.kept)\n\n    def m(self, check=g):\n"
        "        pass\n"
    )
    assert imported_references(text) == {
        (0, "x.y", "f"),
        (0, "checks", "alike"),
        (0, "checks", "kept"),
        (1, "near", "agree"),
        (1, "", "near"),
        (2, "up", "h"),
    }
    starred = "from checks import *\nfrom .more import *\n\n\ndef t():\n    alike(_private(1))\n"
    assert imported_references(starred) == {(0, "checks", "alike"), (1, "more", "alike")}
    assert not imported_references("def t():\n    local()\n")


def test_what_the_tests_expect_to_raise_is_what_they_test() -> None:
    """`imports.expected_to_raise`: a callable handed to `assertRaises(E, f, ...)` or
    `pytest.raises(E, f)`, and what is called inside `with self.assertRaises(E):` or `with
    pytest.raises(E):`; a call outside those, or a callable of another assertion, is none."""
    from fixbot.tamper.imports import expected_to_raise

    text = (
        "import pytest\nimport checks\nfrom validate import check_even, check_odd, other\n"
        "from more import as_arg, plain\n\n\n"
        "def test(self):\n    check_odd(1)\n    self.assertRaises(AssertionError, as_arg, 3)\n"
        "    with self.assertRaisesRegex(AssertionError, 'odd'):\n        check_even(3)\n"
        "    with pytest.raises(ValueError):\n        checks.parse('x')\n"
        "    self.assertTrue(other, plain)\n"
    )
    assert expected_to_raise(text) == {
        (0, "more", "as_arg"),
        (0, "validate", "check_even"),
        (0, "checks", "parse"),
    }
    assert not expected_to_raise("def t(:\n")


def test_a_function_the_tests_expect_to_raise_is_not_their_assertion(tmp_path: Path) -> None:
    """Round 38's false alarm: validate.py holds `check_even` alone, which only raises
    AssertionError, and the failing test both calls it and expects it to raise: the code under
    test, not the tests' (`helpers` leaves it out); called alone, it is theirs (round 36)."""
    from fixbot.run import integrity

    tested = (
        "import unittest\n\nfrom validate import check_even\n\n\n"
        "class EvenTest(unittest.TestCase):\n    def test_even(self):\n        check_even(4)\n\n"
        "    def test_odd(self):\n        with self.assertRaises(AssertionError):\n"
        "            check_even(3)\n"
    )
    validate = "def check_even(n):\n    if n % 3:\n        raise AssertionError(n)\n"
    repo = make_repo(tmp_path / "tested", {"validate.py": validate, "test_validate.py": tested})
    head = git(repo, "rev-parse", "HEAD")
    assert integrity.helpers(repo, head, ["test_validate.py"]) == frozenset()
    alone = tested.split("    def test_odd")[0]
    repo = make_repo(tmp_path / "alone", {"validate.py": validate, "test_validate.py": alone})
    head = git(repo, "rev-parse", "HEAD")
    assert integrity.helpers(repo, head, ["test_validate.py"]) == {"validate.py"}


def test_a_pytest_tests_helper_base_is_found_by_its_imports(tmp_path: Path) -> None:
    """Round 38: pytest's observer streams no classes, so `helpers` gets the failing test's own
    file alone; the test support it imports (tests_helpers.py's base class) is the tests', and
    so is the module of assertions alone that base calls (checks.py); a module of the code it
    imports (app.py) is not."""
    from fixbot.run import integrity

    files = {
        "app.py": "def add(a, b):\n    return a - b\n",
        "checks.py": "def alike(a, b):\n    if a != b:\n        raise AssertionError(a)\n",
        "tests_helpers.py": (
            "import unittest\n\nimport checks\n\n\nclass Base(unittest.TestCase):\n"
            "    def assertSum(self, total, *terms):\n        checks.alike(sum(terms), total)\n"
        ),
        "test_app.py": (
            "from app import add\nfrom tests_helpers import Base\n\n\nclass T(Base):\n"
            "    def test_add(self):\n        self.assertSum(add(2, 2), 2, 2)\n"
        ),
    }
    repo = make_repo(tmp_path / "repo", files)
    head = git(repo, "rev-parse", "HEAD")
    assert integrity.helpers(repo, head, ["test_app.py"]) == {"tests_helpers.py", "checks.py"}


def test_what_a_module_defines_and_hands_on() -> None:
    """`imports.module_level`: the names a module defines at its top level, the names its
    imports bind (a star import's under "*", searched for any name by `sources`), and whether
    it only hands names on (imports, a docstring, `__all__`)."""
    from fixbot.tamper.imports import module_level

    top = module_level(
        '"""Re-exports."""\nfrom .asserts import assert_alike as alike\nfrom .more import *\n'
        '__all__ = ["alike"]\n'
    )
    assert top.defined == {"__all__"}
    assert top.only_imports
    assert top.sources("alike") == [(1, "asserts", "assert_alike"), (1, "more", "alike")]
    assert top.sources("other") == [(1, "more", "other")]
    assert not module_level("def f():\n    pass\nprint(1)\n").only_imports
    assert module_level("def f():\n    pass\nclass C:\n    pass\n").defined == {"f", "C"}


@pytest.mark.parametrize(
    ("path", "shadows"),
    [
        ("checks/__init__.py", True),
        ("checks/__init__.cpython-311-x86_64-linux-gnu.so", True),
        ("checks.cpython-311-x86_64-linux-gnu.so", True),
        ("checks.abi3.so", True),
        ("__pycache__/checks.cpython-311.pyc", True),
        ("sub/asserts/__init__.py", True),
        ("checks/other.py", False),
        ("checks.pyc", False),
        ("checks.py", False),
        ("checksum.py", False),
        ("other/checks/__init__.py", False),
    ],
)
def test_a_file_added_where_import_finds_it_first_shadows_a_module(
    path: str, shadows: bool
) -> None:
    """`imports.shadows`: what the path finder finds before a module in its folder (a package of
    its name, an extension module, a cached `.pyc`); a module of another folder, a `.pyc`
    beside the source (tried after it) and the module itself are none."""
    from fixbot.tamper.imports import shadows as shadowing

    assert shadowing(path, ["checks.py", "sub/asserts.py", "README.md"]) is shadows


def test_a_function_reached_otherwise_than_by_a_call_is_followed(tmp_path: Path) -> None:
    """The assertion function a failing test's helper base reaches by a star import, through a
    package's `__init__.py` that re-exports it, or as a class attribute
    (`staticmethod(checks.assert_alike)`) makes its file the tests' (round 37): the
    re-exporting `__init__.py` (imports alone) with it; a package the fix adds beside a pinned
    module is pinned (absent at the start: removed for the deciding check). Without the
    control, `imported_calls` read none of these and the package was the code's."""
    from fixbot.run import integrity

    base = "import unittest\n\n\nclass Base(unittest.TestCase):\n"
    helpers = {
        "star_helpers.py": "from checks import *\n" + base + "    def assertA(self, a):\n"
        "        assert_alike(a, 1)\n",
        "pkg_helpers.py": "from pkg import far\n" + base + "    def assertB(self, a):\n"
        "        far(a, 1)\n",
        "attr_helpers.py": "import more\n" + base + "    alike = staticmethod(more.near)\n",
    }
    files = {
        **helpers,
        "checks.py": ASSERTS,
        "pkg/__init__.py": "from pkg.asserts import assert_alike as far\n",
        "pkg/asserts.py": ASSERTS,
        "more.py": ASSERTS.replace("assert_alike", "near"),
        "app.py": "def add(a, b):\n    return a - b\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    start = git(repo, "rev-parse", "HEAD")
    held = integrity.helpers(repo, start, sorted(helpers))
    assert held == {*helpers, "checks.py", "pkg/__init__.py", "pkg/asserts.py", "more.py"}
    (repo / "checks").mkdir()
    (repo / "checks" / "__init__.py").write_text(EMPTIED)
    (repo / "app.py").write_text("def add(a, b):\n    return a + b\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "fix")
    tree = git(repo, "rev-parse", "HEAD^{tree}")
    assert integrity.pinned(repo, start, tree, held) == ["checks/__init__.py"]
    back = integrity.original_tree(repo, tree, start, ["checks/__init__.py"], held)
    assert "checks/__init__.py" not in git(repo, "ls-tree", "-r", "--name-only", back)


def test_a_message_formatter_beside_assertion_functions_keeps_the_module_theirs() -> None:
    """`changes.assertions_only`: a function named only in the message an assertion function
    raises or reports (`raise AssertionError(message(a, b))`, `fail(...)`, an `assert`'s
    message) may sit beside it (round 37); one whose answer decides the assertion (`ok`), one
    named elsewhere or nowhere leaves the module the code's."""
    from fixbot.tamper.changes import assertions_only

    message = "def message(a, b):\n    return f'{a} != {b}'\n"
    raising = "def alike(a, b):\n    if a != b:\n        raise AssertionError(message(a, b))\n"
    stated = "def alike(a, b):\n    assert a == b, message(a, b)\n"
    failing = "def alike(a, b):\n    if a != b:\n        fail(message(a, b))\n"
    for text in (raising, stated, failing):
        assert assertions_only(text + message)
    deciding = "def alike(a, b):\n    if not message(a, b):\n        raise AssertionError\n"
    assert not assertions_only(deciding + message)
    assert not assertions_only(raising + message + "TEXT = message(1, 2)\n")
    assert not assertions_only(raising + message + "def unused():\n    return 1\n")


def test_the_helpers_are_those_of_the_tests_the_start_did_not_pass(tmp_path: Path) -> None:
    """`judging.helpers` reads the classes' files of the tests the start's run did not pass (an
    error, or an outcome it never streamed), from the first attempt's observation when it ran
    here: none from a passing test's, none where the start came from a failure log elsewhere
    (`run.first`)."""
    from types import SimpleNamespace

    from fixbot.core.observed import Observation
    from fixbot.run.phases import judging
    from tests.observe.test_unittest_class_files import HELPED

    files = {"one_helpers.py": HELPED, "two_helpers.py": HELPED, "three_helpers.py": HELPED}
    repo = make_repo(tmp_path / "repo", files)
    seen = Observation(
        tests={"t.A.test_a": "failed", "t.B.test_b": "passed", "t.C.test_c": "error"},
        classes={
            "t.A.test_a": ["t.py", "one_helpers.py"],
            "t.B.test_b": ["t.py", "two_helpers.py"],
            "t.C.test_c": ["three_helpers.py"],
            "t.D.test_d": ["app.py"],
        },
    )
    state = SimpleNamespace(attempts=[SimpleNamespace(seen=seen)], start_sha="HEAD")
    checker = SimpleNamespace(workdir=repo, env={})
    settings = SimpleNamespace(check="python -m unittest")
    run = SimpleNamespace(first=None, repo=repo, state=state, checker=checker, settings=settings)
    assert judging.helpers(run) == {"one_helpers.py", "three_helpers.py"}  # type: ignore[arg-type]
    assert not judging.helpers(SimpleNamespace(first=object(), repo=repo, state=state))  # type: ignore[arg-type]
