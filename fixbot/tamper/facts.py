"""The facts the tampering rules are made of, in one table: which files are test-runner or CI
configuration, and the words that skip a test or reach into a test framework. What is each
language's (its test files, its skip words, its runners' configuration files) is its
ecosystem's (`fixbot.ecosystems`), gathered here from the registry.

Both readers take them from here: the edit-time guard (`fixbot.agent.guard`), which refuses an
edit before it lands, and the detector over the final diff (`fixbot.tamper.cheats`), which judges
what a green fix changed. A file name here is compared case-insensitively.
"""

from __future__ import annotations

import json
import re
import sys

from fixbot.ecosystems import registry

# How a test and an assertion are written and the words that skip a test are each ecosystem's
# (`fixbot.ecosystems`), as is which files are tests (`fixbot.tamper.changes.is_test_file`).
TEST_DEF = re.compile(registry.definitions(), re.M)
SKIP = re.compile(registry.skips(), re.M)
ASSERTION = re.compile(registry.assertions(), re.M)
CI = re.compile(
    r"^(?:\.github/|\.gitlab-ci\.yml$|\.gitlab/|\.circleci/|jenkinsfile$|azure-pipelines\.yml$"
    r"|\.travis\.yml$|\.buildkite/|bitbucket-pipelines\.yml$|\.pre-commit-config\.yaml$)",
    re.I,
)
# The files that say how a test runner, linter or build runs (searched in the file's path: its
# name, or its last parts where the name alone says nothing, `.cargo/config.toml`): each
# ecosystem's, and the build tools any of them may use.
RUNNER_CONFIG = re.compile(
    r"(?:^|/)(?:g?nu?makefile|makefile|justfile|taskfile\.ya?ml|\w*\.mk|"
    + registry.runner_config()
    + r")$",
    re.I,
)
PACKAGE_KEYS = (
    "scripts",
    "jest",
    "mocha",
    "ava",
    "vitest",
    "c8",
    "nyc",
    "eslintConfig",
    "prettier",
    "babel",  # babel-jest's configuration, as babel.config.js
)
# Entry-point groups a test runner loads plugins from when the project is installed
# (pytest: `pytest11`, https://docs.pytest.org/en/stable/how-to/writing_plugins.html).
PLUGIN_GROUPS = frozenset({"pytest11"})
# pytest, its own imports (pip show pytest: iniconfig, packaging, pluggy, exceptiongroup, tomli,
# colorama) and the tools a check commonly runs; the standard library is added below.
TOOL_MODULES = frozenset(
    {"pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "exceptiongroup", "tomli"}
    | {"colorama", "hypothesis", "coverage", "nose", "nose2", "tox", "nox", "xdist", "pytest_cov"}
    | {"sitecustomize", "usercustomize"}
)
IMPORTABLE = TOOL_MODULES | frozenset(sys.stdlib_module_names)
# Names inside a test framework that decide whether a test passed: code outside the tests that
# imports or rebinds one of them rewrites the verdict (pytest's `Function.runtest`, pluggy's hook
# calls, unittest's `TestCase.run` and `TestResult`, the reports).
FRAMEWORK_MODULES = frozenset({"_pytest", "pluggy", "pytest", "unittest", "doctest"})
FRAMEWORK_NAMES = frozenset(
    {"runtest", "_runtest", "TestCase", "TestResult", "TestReport", "CallInfo", "Function"}
    | {"HookCaller", "_hookexec", "PluginManager", "_multicall", "call_and_report"}
)
# The same for jest, vitest and node: their globals replaced, their internals required.
JS_FRAMEWORK = re.compile(
    r"\bglobal(?:This)?\.(?:expect|test|it|describe)\s*=[^=]"
    r"|\bexpect\.(?:extend|prototype)\b|\brequire\(\s*['\"](?:jest-circus|jest-jasmine2|expect|@jest/"
    r"|@vitest/runner)|\bfrom\s+['\"](?:jest-circus|@jest/|@vitest/runner)"
)

# The edit-time guard's extra words, kept with the rest so the two readers cannot drift: in a
# conftest, the tricks that change the exit status, collection or plugins; modules and packages
# that would replace a test runner; the test sections of setup.cfg and pyproject.toml; the
# assertions that cannot fail where no syntax tree is at hand (JavaScript, Go).
CONFTEST_TRICK = re.compile(
    r"exitstatus|os\._exit|sys\.exit|SystemExit|force_result|force_exception|\.outcome\s*="
    r"|collect_ignore|addopts|deselect|pytest_plugins|no:|\bdef\s+pytest_\w+|\batexit\b"
)
SHADOW_NAMES = re.compile(
    r"^(?:pytest|_pytest|py|unittest|nose2?|doctest|hypothesis|sitecustomize|usercustomize"
    r"|tox|nox|coverage|pluggy|iniconfig)\.py$|^.*\.pth$",
    re.I,
)
SHADOW_PACKAGES = frozenset({"pytest", "_pytest", "unittest", "nose", "nose2", "doctest", "pluggy"})
INI_SECTION = re.compile(
    r"^\[(?:tool:pytest|pytest|flake8|pycodestyle|mypy[^\]]*|coverage:[^\]]*|pylint[^\]]*"
    r"|tool:isort|isort|tox[^\]]*|testenv[^\]]*|options\.entry_points)\][^\[]*",
    re.M | re.I,
)
PYPROJECT_TOOLS = ("pytest", "ruff", "mypy", "coverage", "pyright", "tox", "pylint")
PYPROJECT_SECTION = re.compile(
    r"^\[+tool\.(?:" + "|".join(PYPROJECT_TOOLS) + r")\b[^\n]*\][^\[]*", re.M
)
SELF_COMPARE = re.compile(
    r"^\s*assert\s+(?P<a>[^=!<>,#]+?)\s*(?:==|<=|>=|\bis\b)\s*(?P=a)\s*(?:[,#].*)?$"
    r"|\bassert(?:Equal|Is|LessEqual|GreaterEqual)\s*\(\s*(?P<b>[^,()]+?)\s*,\s*(?P=b)\s*[,)]"
    r"|\bexpect\s*\(\s*(?P<c>[^()]+?)\s*\)\s*\.\s*to(?:Be|Equal|StrictEqual)\s*\(\s*(?P=c)\s*\)",
    re.M,
)
ALWAYS_TRUE = re.compile(
    r"^\s*assert\s+(?:True|1|not\s+(?:False|None|0)|\"[^\"]+\"|'[^']+')\s*(?:[,#].*)?$"
    r"|\bself\.assertTrue\s*\(\s*(?:True|1)\s*[,)]|\bexpect\s*\(\s*true\s*\)\s*\.\s*toBe\s*\(\s*true",
    re.M,
)

# A file the check command names is the check's own script (`sh check.sh`, `pytest -c ci.ini`)
# unless it is program source: `python app.py` runs the code under test, which a fix may change.
PROGRAM_SOURCE = re.compile(r"\.(py|pyw|[cm]?[jt]sx?|go|rs|rb|java|kt|c|cc|cpp|h|hpp|cs|php)$")


def defined_tests(text: str) -> set[str]:
    """The names of the tests `text` defines (`TEST_DEF`: each ecosystem's definitions)."""
    return {m[m.lastindex] for m in TEST_DEF.finditer(text) if m.lastindex}


def is_check_script(path: str) -> bool:
    """True when `path`, named by the check command, is the check's own file, not program
    source (`PROGRAM_SOURCE`): the check-script rule guards the former only."""
    return not PROGRAM_SOURCE.search(path)


# A Python file that runs a test runner in-process (`pytest.main`, `unittest.main`, nose's).
TEST_DRIVER = re.compile(
    r"\b(?:pytest|nose2?)\.(?:main|run)\s*\(|\bunittest\.(?:main|TextTestRunner)\b"
    r"|^\s*(?:from|import)\s+(?:pytest|unittest|nose2?)\b",
    re.M,
)


# The same in JavaScript (`node ci/test.js`): a runner required or imported (jest's `runCLI`,
# vitest's `startVitest`, node's own `node:test` `run`), or started as a process
# (`spawnSync('node', ['--test'])`, `execSync('npx jest')`).
JS_TEST_DRIVER = re.compile(
    r"\b(?:require|import)\b[^\n]*['\"](?:jest|@jest/core|jest-cli|vitest(?:/node)?|mocha|ava"
    r"|tap|node:test)['\"]"
    r"|\b(?:spawn|spawnSync|exec|execSync|execFile|execFileSync|fork)\s*\([^;]*?"
    r"(?:\bjest\b|\bvitest\b|\bmocha\b|\bava\b|['\"]--test['\"]|\bnode\s+--test\b|\bnpm\b)"
)
JS_SOURCE = re.compile(r"\.[cm]?[jt]sx?$")


def is_test_driver(path: str, text: str) -> bool:
    """True when `path`, a Python or JavaScript file the check runs (`python run_tests.py`,
    `node ci/test.js`), drives a test runner itself (`TEST_DRIVER`, `JS_TEST_DRIVER`): it is
    then the check's own file, not code under test. A test module is not one (a test imports
    pytest; its change is judged as the tests')."""
    if registry.is_test_file(path):
        return False
    if path.endswith(".py"):
        return TEST_DRIVER.search(text) is not None
    return JS_SOURCE.search(path) is not None and JS_TEST_DRIVER.search(text) is not None


def package_keys(text: str) -> object:
    """What package.json says about running the tests (its `PACKAGE_KEYS`), to compare two
    versions: the text itself when it is not JSON, the value when it is not an object."""
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return text
    return {key: data.get(key) for key in PACKAGE_KEYS} if isinstance(data, dict) else data
