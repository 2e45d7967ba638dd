"""The git that the failed-run gates need (`fixbot.github.cifail`), in the one git client
(`fixbot.process.git`): a base branch fetched, fixbot's commits since it with their trailer,
the files the branch changed, a ref resolved. Real repositories, real git."""

from __future__ import annotations

import ast
import os
from pathlib import Path

from fixbot.process import git
from tests.fakes.paths import ROOT
from tests.fakes.repo import git as sh
from tests.fakes.repo import make_repo

BASE_REF = "refs/remotes/origin/fixbot-base/main"


def pull_request(tmp_path: Path) -> Path:
    """A clone on a branch `feature` with two commits over `main`, one carrying a
    `fixbot-attempt` trailer, and a commit on `main` made after the branch left it."""
    origin = make_repo(tmp_path / "origin", {"app.py": "x = 1\n", "README.md": "r\n"})
    sh(tmp_path, "clone", "-q", str(origin), "clone")
    clone = tmp_path / "clone"
    sh(clone, "switch", "-q", "-c", "feature")
    (clone / "app.py").write_text("x = 2\n")
    sh(clone, "commit", "-qam", "fix the value\n\nfixbot-attempt: 3")
    (clone / "lib.py").write_text("y = 1\n")
    sh(clone, "add", "lib.py")
    sh(clone, "commit", "-qm", "add lib")
    (origin / "README.md").write_text("later\n")
    sh(origin, "commit", "-qam", "a later base")
    return clone


def test_the_base_is_fetched_and_the_branchs_commits_and_files_are_read(tmp_path: Path) -> None:
    clone = pull_request(tmp_path)
    assert git.resolve(clone, BASE_REF) is None
    git.fetch_branch(clone, "main", BASE_REF, dict(os.environ))
    assert git.resolve(clone, BASE_REF) == sh(tmp_path / "origin", "rev-parse", "HEAD")
    commits = git.commits_with_trailer(clone, BASE_REF, "fixbot-attempt")
    assert [(subject, value) for _, subject, value in commits] == [
        ("add lib", ""),
        ("fix the value", "3"),
    ]
    assert commits[0][0] == sh(clone, "rev-parse", "HEAD")
    # the base's own later change is not the branch's
    assert sorted(git.changed_on_branch(clone, BASE_REF)) == ["app.py", "lib.py"]


def test_the_failed_run_gates_run_no_git_command_of_their_own() -> None:
    tree = ast.parse((ROOT / "fixbot/github/cifail.py").read_text(encoding="utf-8"))
    calls = {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and getattr(node.func.value, "id", None) == "git"
    }
    assert calls and not calls & {"run", "completed"}
