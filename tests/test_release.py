"""The release workflow's step that points the released action.yml at the published image, run
as GitHub runs it (bash -eo pipefail) against a local origin standing in for github.com."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml

from tests.fakes.paths import ROOT
from tests.fakes.repo import git

RELEASE = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text("utf-8"))
STEP = next(
    s for s in RELEASE["jobs"]["image"]["steps"] if s.get("name", "").startswith("Point action.yml")
)
DIGEST = "sha256:" + "ab" * 32


def release(tmp_path: Path, action_yml: str) -> tuple[subprocess.CompletedProcess[str], Path, str]:
    """Tag a commit holding `action_yml` v1.2.3 and run the step in its checkout; return the
    step's result, the origin and the tagged sha."""
    origin, work = tmp_path / "origin.git", tmp_path / "work"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    git(tmp_path, "clone", "-q", str(origin), str(work))
    (work / "action.yml").write_text(action_yml, encoding="utf-8")
    git(work, "add", "action.yml")
    git(work, "commit", "-q", "-m", "release 1.2.3")
    git(work, "tag", "v1.2.3")
    git(work, "push", "-q", "origin", "HEAD:refs/heads/main", "refs/tags/v1.2.3")
    tagged = git(work, "rev-parse", "HEAD")
    env = {
        **os.environ,
        "MAJOR": "v1",
        "REF_NAME": "v1.2.3",
        "OWNER": "Octo-Org",
        "DIGEST": DIGEST,
        "GH_TOKEN": "ghs_release_test_token",
        "REPOSITORY": "Octo-Org/fixbot",
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        # github.com is this origin
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.{origin}.insteadOf",
        "GIT_CONFIG_VALUE_0": "https://x-access-token:ghs_release_test_token@github.com/"
        "Octo-Org/fixbot.git",
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", STEP["run"]],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return done, origin, tagged


def test_the_released_action_yml_runs_the_published_image_by_version(tmp_path: Path) -> None:
    original = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert yaml.safe_load(original)["runs"] == {"using": "docker", "image": "Dockerfile"}

    done, origin, tagged = release(tmp_path, original)

    assert done.returncode == 0, done.stdout + done.stderr
    commit = git(origin, "rev-parse", "refs/tags/v1.2.3^{commit}")
    assert git(origin, "rev-parse", "refs/tags/v1^{commit}") == commit != tagged
    assert git(origin, "rev-parse", f"{commit}^") == tagged
    released = git(origin, "show", f"{commit}:action.yml") + "\n"
    image = "docker://ghcr.io/octo-org/fixbot:v1.2.3"  # GHCR names are lower case
    assert yaml.safe_load(released)["runs"] == {"using": "docker", "image": image}
    assert released == original.replace("  image: Dockerfile\n", f"  image: {image}\n")
    assert git(origin, "diff", "--name-only", tagged, commit) == "action.yml"
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert DIGEST in summary and commit in summary


def test_without_image_dockerfile_the_release_step_fails_and_moves_no_tag(tmp_path: Path) -> None:
    action = "name: x\nruns:\n  using: docker\n  image: docker://elsewhere:1\n"

    done, origin, tagged = release(tmp_path, action)

    assert done.returncode != 0
    assert "has no 'image: Dockerfile'" in done.stdout + done.stderr
    assert git(origin, "rev-parse", "refs/tags/v1.2.3^{commit}") == tagged
    assert git(origin, "tag", "--list", "v1") == ""
