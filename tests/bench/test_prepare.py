"""prepare(): a case rebuilt from a (local, pre-cached) release into a git repository and a venv."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest

from fixbot.bench.archives import PrepareError
from fixbot.bench.corpus import Case
from fixbot.bench.environments import interpreter
from fixbot.bench.prepare import prepare
from fixbot.bench.releases import sdist_file
from fixbot.bench.verify import verify_case
from fixbot.process import git

BROKEN = """--- /dev/null
+++ b/test_calc.py
@@ -0,0 +1,5 @@
+from calc import add
+
+
+def test_add():
+    assert add(2, 3) == 5
"""
FIX = """--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
"""
HIDDEN = """--- /dev/null
+++ b/hidden_calc.py
@@ -0,0 +1,3 @@
+from calc import add
+
+assert add(-1, 1) == 0, "add is wrong"
"""


def fake_release(cache: Path, name: str = "calc", version: str = "1.0") -> None:
    """Put `name-version.tar.gz` (one folder, calc.py with the bug) where `download` looks."""
    folder = cache / "archives"
    folder.mkdir(parents=True, exist_ok=True)
    data = b"def add(a, b):\n    return a - b\n"
    with tarfile.open(folder / f"python-{name}-{version}.tar.gz", "w:gz") as tar:
        info = tarfile.TarInfo(f"{name}-{version}/calc.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


def make_case(**over: object) -> Case:
    data: dict[str, object] = {
        "id": "calc-1-0",
        "family": "regression",
        "ecosystem": "python",
        "summary": "add subtracts",
        "source": ["https://example.org/calc/changelog"],
        "package": {"name": "calc", "version": "1.0"},
        "check": {"command": "python test_calc.py", "expect": "AssertionError"},
        "broken": {"patch": BROKEN},
        "fix": {"patch": FIX},
        "hidden": {"patch": HIDDEN, "command": "python hidden_calc.py"},
    }
    data.update(over)
    return Case.model_validate(data)


BROKEN_RUN = BROKEN.replace(
    "+    assert add(2, 3) == 5", "+    assert add(2, 3) == 5\n+\n+test_add()"
)
BROKEN_RUN = BROKEN_RUN.replace("@@ -0,0 +1,5 @@", "@@ -0,0 +1,7 @@")


@pytest.mark.slow
def test_prepare_makes_one_broken_commit_where_the_check_fails(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    fake_release(cache)
    prepared = prepare(make_case(broken={"patch": BROKEN_RUN}), cache)
    assert git.run(prepared.repo, "log", "--format=%s") == "broken"
    assert git.run(prepared.repo, "status", "--porcelain") == ""
    assert sorted(git.run(prepared.repo, "ls-files").split()) == ["calc.py", "test_calc.py"]
    done = subprocess.run(
        prepared.check, shell=True, cwd=prepared.repo, env=prepared.env, capture_output=True
    )
    assert done.returncode != 0 and b"AssertionError" in done.stderr
    assert prepared.env["PATH"].startswith(str(cache / "envs"))


@pytest.mark.slow
def test_a_tox_checks_environments_stay_out_of_the_repositorys_changes(tmp_path: Path) -> None:
    """A tox check makes `.tox/` in the repository's root at run time: git must not see it, or
    the fixer's diff and the tampering rules would read a virtualenv's files as its edits."""
    cache = tmp_path / "cache"
    fake_release(cache)
    prepared = prepare(make_case(), cache)
    site = prepared.repo / ".tox" / "py" / "lib" / "site-packages"
    site.mkdir(parents=True)
    (site / "made_by_tox.py").write_text("x = 1\n")
    assert git.run(prepared.repo, "status", "--porcelain") == ""
    (prepared.repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    assert git.run(prepared.repo, "status", "--porcelain") == " M calc.py"


@pytest.mark.slow
def test_a_second_prepare_starts_again_from_the_release(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    fake_release(cache)
    first = prepare(make_case(), cache)
    (first.repo / "calc.py").write_text("changed\n")
    envs = sorted(p.name for p in (cache / "envs").iterdir())
    second = prepare(make_case(), cache)
    assert (second.repo / "calc.py").read_text().endswith("return a - b\n")
    assert sorted(p.name for p in (cache / "envs").iterdir()) == envs  # reused, not rebuilt


@pytest.mark.slow
def test_verify_holds_for_a_sound_case_and_names_the_broken_claim(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    fake_release(cache)
    assert verify_case(make_case(broken={"patch": BROKEN_RUN}), cache).problems == []
    passing = make_case(broken={"patch": BROKEN_RUN}, check={"command": "true", "expect": "x"})
    assert "passes on the broken repository" in verify_case(passing, cache).problems[0]
    wrong = make_case(broken={"patch": BROKEN_RUN}, check={"command": "false", "expect": "Boom"})
    assert "lacks 'Boom'" in verify_case(wrong, cache).problems[0]
    no_fix = make_case(broken={"patch": BROKEN_RUN}, fix={"patch": HIDDEN})
    assert "fails after the reference fix" in verify_case(no_fix, cache).problems[0]


@pytest.mark.slow
def test_verify_in_a_folder_of_its_own_leaves_the_caches_work_alone(tmp_path: Path) -> None:
    """Two verifications of one case at once (two suites on one machine) each in their own
    tree: `into` holds the repository, its logs beside it, nothing under the cache's `work/`."""
    cache = tmp_path / "cache"
    fake_release(cache)
    case = make_case(broken={"patch": BROKEN_RUN})
    assert verify_case(case, cache, tmp_path / "mine" / case.id).problems == []
    assert (tmp_path / "mine" / case.id / ".git").is_dir()
    assert (tmp_path / "mine" / f"{case.id}.logs" / "hidden.log").is_file()
    assert not (cache / "work").exists() and not (cache / "logs").exists()


@pytest.mark.slow
def test_a_patch_that_does_not_apply_is_a_prepare_error(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    fake_release(cache)
    with pytest.raises(PrepareError, match="the \\[broken\\] patch does not apply"):
        prepare(make_case(broken={"patch": FIX.replace("a - b", "a * b")}), cache)


def test_sdist_file_matches_normalized_names() -> None:
    files = [
        {"filename": "Click-7.0-py2.py3-none-any.whl"},
        {"filename": "Click-7.0.tar.gz"},
        {"filename": "zope_interface-1.0.zip"},
    ]
    assert sdist_file(files, "click", "7.0") == files[1]
    assert sdist_file(files, "zope.interface", "1.0") == files[2]
    assert sdist_file(files, "click", "7.1") is None


@pytest.mark.slow
def test_an_archive_member_that_climbs_out_is_refused(tmp_path: Path) -> None:
    """A release archive is third-party data: a member named `../x` or an absolute path must
    not be written outside the folder it is unpacked into (tarfile's "data" filter)."""
    cache = tmp_path / "cache"
    folder = cache / "archives"
    folder.mkdir(parents=True)
    with tarfile.open(folder / "python-calc-1.0.tar.gz", "w:gz") as tar:
        for name in ("calc-1.0/calc.py", "calc-1.0/../../../escaped.py"):
            info = tarfile.TarInfo(name)
            info.size = 2
            tar.addfile(info, io.BytesIO(b"x\n"))
    with pytest.raises(PrepareError, match="cannot be unpacked"):
        prepare(make_case(), cache)
    assert list(tmp_path.rglob("escaped.py")) == []


def test_a_pyenv_shim_is_passed_over_for_the_installed_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyenv's shim answers `which python3.12` for every installed version but runs only the
    selected one (`pyenv: python3.12: command not found`); the version's own binary is used."""
    shims = tmp_path / "shims"
    shims.mkdir()
    (shims / "python3.99").write_text("#!/bin/sh\nexit 127\n")
    (shims / "python3.99").chmod(0o755)
    real = tmp_path / "pyenv" / "versions" / "3.99.1" / "bin" / "python3.99"
    real.parent.mkdir(parents=True)
    real.write_text("#!/bin/sh\n")
    monkeypatch.setenv("PATH", str(shims))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    assert interpreter("3.99") == real
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "none"))
    with pytest.raises(PrepareError, match=r"no Python 3\.99"):
        interpreter("3.99")


ROOT_README = """--- /dev/null
+++ b/README.md
@@ -0,0 +1 @@
+# tools: a monorepo whose packages live in packages/
"""


def in_subfolder(patch: str) -> str:
    """`patch` with its files moved under packages/calc/."""
    return patch.replace("a/", "a/packages/calc/").replace("b/", "b/packages/calc/")


@pytest.mark.slow
def test_a_release_unpacked_into_a_monorepos_subfolder(tmp_path: Path) -> None:
    """With `[package] into`, the release lands in that folder of the repository, the patches
    name files from the root, which holds the monorepo's own files, and the check runs from
    the root as a monorepo's CI does."""
    cache = tmp_path / "cache"
    fake_release(cache)
    case = make_case(
        package={"name": "calc", "version": "1.0", "into": "packages/calc"},
        broken={"patch": ROOT_README + in_subfolder(BROKEN_RUN)},
        check={"command": "cd packages/calc && python test_calc.py", "expect": "AssertionError"},
        fix={"patch": in_subfolder(FIX)},
        hidden={"patch": in_subfolder(HIDDEN), "command": "python packages/calc/hidden_calc.py"},
    )
    prepared = prepare(case, cache)
    files = sorted(git.run(prepared.repo, "ls-files").split())
    assert files == ["README.md", "packages/calc/calc.py", "packages/calc/test_calc.py"]
    assert verify_case(case, cache).problems == []
