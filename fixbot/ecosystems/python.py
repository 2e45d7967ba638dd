"""Python: pip, setuptools, hatch, poetry, uv, pdm and pipenv projects, tested by pytest or
unittest (https://docs.pytest.org/en/stable/explanation/goodpractices.html#conventions-for-python-test-discovery)."""

from __future__ import annotations

import re
from pathlib import Path

from fixbot.core.failure import MissingDependency
from fixbot.ecosystems.base import Commands, Dependencies, Ecosystem, Missing, Tests
from fixbot.ecosystems.tree import Tree

REQUIREMENTS = (
    "tests/requirements.txt",
    "requirements-test.txt",
    "requirements-tests.txt",
    "test-requirements.txt",
    "requirements/test.txt",
    "requirements/tests.txt",
    "requirements-dev.txt",
    "dev-requirements.txt",
    "requirements/dev.txt",
)


def _holds_python(folder: Path) -> bool:
    """True when `folder` has a `.py` file of its own (an unreadable one has none we can see)."""
    try:
        return any(p.suffix == ".py" for p in folder.iterdir())
    except OSError:
        return False


def holds(name: str, tree: Tree) -> bool:
    """A module `name.py`, an extension `name.*.so` or a package folder `name/` anywhere in the
    repository (pytest puts test folders on `sys.path`, so `tests/helpers.py` is `helpers`)."""
    for root, dirs, files in tree.folders():
        if name in dirs and _holds_python(root / name):
            return True
        if f"{name}.py" in files or any(
            f.startswith(f"{name}.") and f.endswith(".so") for f in files
        ):
            return True
    return False


def advice(missing: MissingDependency, where: str) -> str:
    """Where a Python test dependency goes: the requirements file the project has."""
    name, manifest = missing.name, missing.manifest
    listed = manifest if manifest and manifest.endswith(".txt") else None
    install = f"pip install -r {listed}" if listed else "pip install -e '.[test]'"
    if missing.declared and manifest:
        action = f"`{name}` is listed in {manifest} but not installed: install it in {where}"
    elif listed:
        action = f"add `{name}` to {listed} and install that file in {where}"
    elif manifest:
        action = (
            f"declare `{name}` among the test dependencies in {manifest}, install them in {where}"
        )
    else:
        action = f"install `{name}` in {where} and list it in the project's test requirements"
        install = f"pip install {name}"
    return f"{action} (e.g. `{install}`)"


ECOSYSTEM = Ecosystem(
    name="python",
    markers=("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile"),
    tests=Tests(
        names=r"test_.*\.py|.*_test\.py",
        sources=(".py",),
        folders=frozenset({"tests", "test", "testing", "spec"}),
        skips=(
            r"pytest\.mark\.(?:skip|skipif|xfail)\b|pytest\.(?:skip|xfail|importorskip)\s*\(",
            r"unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b|@(?:skip|expectedFailure)\b",
            r"\bpytestmark\b|\bcollect_ignore(?:_glob)?\b|--deselect\b|--ignore(?:-glob)?\b",
        ),
        definitions=(r"^\s*(?:async\s+)?def\s+(test\w*)\s*\(",),
        assertions=(r"^\s*assert\b(?!!)|\bself\.assert\w+\s*\(|\bpytest\.raises\s*\(",),
    ),
    dependencies=Dependencies(
        manifests=("pyproject.toml", "setup.cfg", "setup.py", "Pipfile"),
        locks=("poetry.lock", "uv.lock", "pdm.lock", "Pipfile.lock"),
        # requirements.txt, requirements-dev.txt, dev-requirements.txt, requirements_test.in,
        # and any .txt or .in file inside a `requirements/` folder
        pattern=r"(?:.*/)?(?:[\w.-]*[-_.])?requirements[\w.-]*\.(?:txt|in)"
        r"|(?:.*/)?requirements/(?:.*/)?[^/]*\.(?:txt|in)",
        declared_in=(*REQUIREMENTS, "pyproject.toml", "requirements.txt", "setup.cfg"),
        generated=frozenset(
            {".venv", "venv", ".tox", ".nox", "__pycache__", "site-packages", "build", "dist"}
        ),
    ),
    commands=Commands(
        setup=(
            *((file, f"python -m pip install -r {file}") for file in REQUIREMENTS),
            ("pyproject.toml", "python -m pip install -e ."),
            ("setup.py", "python -m pip install -e ."),
            ("requirements.txt", "python -m pip install -r requirements.txt"),
        ),
        check=(("", "python -m pytest"),),
    ),
    missing=Missing(
        loader=re.compile(r"\bModuleNotFoundError: No module named '(?P<name>[\w.]+)'"),
        advice=advice,
        failed=r"\b(?:ModuleNotFoundError|ImportError)\b",
        top=lambda name: name.split(".")[0],
        holds=holds,
    ),
    dialects=("python", "pytest", "unittest", "mypy", "ruff"),
    coverage="the lines each test runs, Ochiai-ranked (`fixbot.agent.spectrum`)",
    runner_config=(
        r"\.?pytest\.ini|\.?pytest\.toml|tox\.ini|\.?tox\.toml|noxfile\.py|\.coveragerc|setup\.py",
        r"\.?ruff\.toml|\.?mypy\.ini|\.flake8|\.?pylintrc|pyrightconfig\.json",
    ),
)
