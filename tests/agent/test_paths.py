import os
from pathlib import Path

import pytest

from fixbot.agent.paths import PathRefused, is_protected, resolve


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("x = 1\n")
    (root / ".git").mkdir()
    (root / ".github" / "workflows").mkdir(parents=True)
    return root


def test_relative_path_resolves_inside(repo: Path) -> None:
    assert resolve(repo, "src/app.py", write=True) == (repo / "src" / "app.py").resolve()


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("../x", "'..'"),
        ("src/../../x", "'..'"),
        ("/etc/x", "absolute"),
        ("~/x", "absolute"),
        ("C:/x", "absolute"),
        (".git/config", ".git/"),
        ("sub/.git/hooks/pre-commit", ".git/"),
        (".fixbot/state.json", ".fixbot/"),
        ("", "empty"),
    ],
)
def test_refused_paths_say_why(repo: Path, raw: str, why: str) -> None:
    with pytest.raises(PathRefused, match=why.replace(".", r"\.").replace("'", "'")):
        resolve(repo, raw)


def test_symlink_out_of_repo_is_refused(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, repo / "link")
    with pytest.raises(PathRefused, match="outside the repository"):
        resolve(repo, "link/x.py", write=True)


def test_symlink_into_git_dir_is_refused(repo: Path) -> None:
    os.symlink(repo / ".git", repo / "innocent")
    with pytest.raises(PathRefused, match=r"\.git/"):
        resolve(repo, "innocent/config", write=True)


def test_protected_paths_refused_for_write_only(repo: Path) -> None:
    protected = [".github/workflows/**"]
    assert resolve(repo, ".github/workflows/ci.yml", protected).name == "ci.yml"
    with pytest.raises(PathRefused, match="protected"):
        resolve(repo, ".github/workflows/ci.yml", protected, write=True)


@pytest.mark.parametrize(
    ("path", "pattern", "hit"),
    [
        (".github/workflows/ci.yml", ".github/workflows/**", True),
        (".github/workflows/sub/x.yml", ".github/workflows/**", True),
        (".github/dependabot.yml", ".github/workflows/**", False),
        ("src/secret.pem", "**/*.pem", True),
        ("secret.pem", "**/*.pem", True),
        ("src/a.py", "*.py", False),
        ("a.py", "*.py", True),
    ],
)
def test_glob_matching(path: str, pattern: str, hit: bool) -> None:
    assert (is_protected(path, [pattern]) is not None) is hit
