"""A GitHub-Actions-like sandbox for end-to-end tests of `fixbot action` in a subprocess.

`ActionSandbox` builds a bare `origin` repository, a workspace cloned from it the way
actions/checkout leaves it (a PR's merge commit detached, or the pushed branch), an event
payload from `tests/data/events/` adjusted to the sandbox, and the runner's variables
(`GITHUB_*`, `INPUT_*`, `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, an isolated `HOME`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.fakes.github_server import FakeGitHub
from tests.fakes.repo import git, write_files

EVENTS = Path(__file__).resolve().parent.parent / "data" / "events"
REPOSITORY = "Codertocat/Hello-World"
ACTION_YML = Path(__file__).resolve().parent.parent.parent / "action.yml"
TOKEN = "ghs_0123456789abcdefFAKEtoken"
RUN_ID = "77"


def action_inputs() -> dict[str, Any]:
    """The `inputs:` of action.yml (name -> its mapping: description, required, default)."""
    data = yaml.safe_load(ACTION_YML.read_text(encoding="utf-8"))
    return dict(data["inputs"])


def load_event(name: str) -> dict[str, Any]:
    """A vendored webhook payload (see tests/data/README.md)."""
    data: dict[str, Any] = json.loads((EVENTS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def failed_workflow_run(api_url: str, sha: str, run_id: int, pr: int) -> dict[str, Any]:
    """A `workflow_run` `completed` event (GitHub's example, adjusted) of run `run_id` of
    `.github/workflows/ci.yml` that failed on branch `changes` at `sha`, for pull request `pr`
    into `main`; `api_url` is the (fake) GitHub's API root."""
    payload = load_event("workflow_run.completed")
    payload["repository"].update({"full_name": REPOSITORY, "default_branch": "main"})
    api = f"{api_url}/repos/{REPOSITORY}"
    payload["workflow_run"].update(
        {
            "id": run_id,
            "run_attempt": 1,
            "conclusion": "failure",
            "path": ".github/workflows/ci.yml",
            "head_branch": "changes",
            "head_sha": sha,
            "head_repository": {"full_name": REPOSITORY},
            "pull_requests": [
                {
                    "number": pr,
                    "head": {"ref": "changes", "sha": sha, "repo": {"url": api}},
                    "base": {"ref": "main", "sha": "0" * 40, "repo": {"url": api}},
                }
            ],
        }
    )
    return payload


def parse_outputs(text: str) -> dict[str, str]:
    """Parse a `GITHUB_OUTPUT` file written with `name<<DELIM` heredocs."""
    found: dict[str, str] = {}
    for match in re.finditer(r"^([\w-]+)<<(\S+)\n(.*?)\n\2$", text, re.S | re.M):
        found[match[1]] = match[3]
    return found


@dataclass
class ActionRun:
    """A finished `fixbot action` subprocess and the files it wrote."""

    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


class ActionSandbox:
    """Repositories, an event and an environment under `root`, against `github`."""

    def __init__(self, root: Path, github: FakeGitHub) -> None:
        self.root = root
        self.github = github
        # the repository on the run's server: fixbot's remote is GITHUB_SERVER_URL/<repo>
        self.server = root / "server"
        self.origin = self.server / REPOSITORY
        self.seed = root / "seed"
        self.runs = 0
        self.origin.parent.mkdir(parents=True)
        git(root, "init", "-q", "--bare", "-b", "main", str(self.origin))
        git(root, "clone", "-q", str(self.origin), str(self.seed))

    def commit(self, branch: str, files: dict[str, str], message: str, base: str = "main") -> str:
        """Commit `files` on `branch` (created from `base` when new) and push it to origin."""
        git(self.seed, "fetch", "-q", "origin")
        if self.origin_sha(branch):
            git(self.seed, "checkout", "-q", "-B", branch, f"origin/{branch}")
        elif self.origin_sha(base):
            git(self.seed, "checkout", "-q", "-B", branch, f"origin/{base}")
        else:
            git(self.seed, "checkout", "-q", "--orphan", branch)
        write_files(self.seed, files)
        git(self.seed, "add", "-A")
        git(self.seed, "commit", "-q", "-m", message)
        git(self.seed, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
        return git(self.seed, "rev-parse", "HEAD")

    def refuse_pushes(self, branch: str) -> None:
        """Make origin refuse every push to `branch` the way a protected branch or a token
        without `contents: write` does: a `pre-receive` hook declines it (`[remote rejected]`),
        which is not a non-fast-forward rejection."""
        hook = self.origin / "hooks" / "pre-receive"
        hook.write_text(
            "#!/bin/sh\n"
            "while read old new ref; do\n"
            f'  if [ "$ref" = refs/heads/{branch} ]; then\n'
            '    echo "Permission to push to this branch denied" >&2; exit 1\n'
            "  fi\n"
            "done\n",
            encoding="utf-8",
        )
        hook.chmod(0o755)

    def origin_sha(self, branch: str) -> str | None:
        """The sha of `branch` in origin, or None."""
        out = git(self.origin, "for-each-ref", "--format=%(objectname)", f"refs/heads/{branch}")
        return out or None

    def workspace(self, branch: str, merge_into: str | None = None, shallow: bool = False) -> Path:
        """A fresh clone set up like actions/checkout: `branch`, or its merge into `merge_into`;
        `shallow` clones `branch` alone at depth 1 (actions/checkout's default)."""
        self.runs += 1
        path = self.root / f"workspace{self.runs}"
        if shallow:
            source = self.origin.as_uri()
            git(self.root, "clone", "-q", "--depth", "1", "-b", branch, source, str(path))
            return path
        git(self.root, "clone", "-q", str(self.origin), str(path))
        if merge_into is None:
            git(path, "checkout", "-q", branch)
            return path
        git(path, "checkout", "-q", "--detach", f"origin/{merge_into}")
        git(path, "merge", "-q", "--no-ff", "-m", "Merge into merge ref", f"origin/{branch}")
        return path

    def pull_request_event(
        self, branch: str, sha: str, head_repo: str = REPOSITORY, number: int = 2
    ) -> dict[str, Any]:
        """pull_request.opened adjusted: head `branch`@`sha` from `head_repo`, base main."""
        event = load_event("pull_request.opened")
        event["repository"]["default_branch"] = "main"
        event["number"] = number
        pr = event["pull_request"]
        pr.update({"number": number, "state": "open"})
        pr["head"].update(
            {"ref": branch, "sha": sha, "label": f"{head_repo.split('/')[0]}:{branch}"}
        )
        pr["head"]["repo"]["full_name"] = head_repo
        pr["base"]["ref"] = "main"
        if head_repo == REPOSITORY:
            self.github.push_author(REPOSITORY, pr["user"]["login"])
        state = self.github.repo(REPOSITORY)
        if not any(i["number"] == number for i in state.issues):
            state.issues.append(
                self.github.issue_json(state, number, {"title": "Update the README"}, pull=True)
            )
        return event

    def review_event(
        self, branch: str, sha: str, reviewer: str, state: str = "changes_requested"
    ) -> dict[str, Any]:
        """pull_request_review.submitted adjusted: PR #2 `branch`@`sha` reviewed by `reviewer`."""
        event = load_event("pull_request_review.submitted")
        pr_part = self.pull_request_event(branch, sha)
        event["pull_request"] = pr_part["pull_request"]
        event["repository"] = pr_part["repository"]
        event["review"]["state"] = state
        event["review"]["user"].update({"login": reviewer, "type": "User"})
        return event

    def register_pull(self, branch: str, sha: str, number: int = 2, state: str = "open") -> None:
        """Make PR `number` (head `branch`@`sha`, base main) known to `GET .../pulls/{n}`."""
        raw = self.pull_request_event(branch, sha, number=number)["pull_request"]
        raw["state"] = state
        repo = self.github.repo(REPOSITORY)
        repo.pulls = [p for p in repo.pulls if p["number"] != number] + [raw]

    def comment_event(
        self, body: str, login: str, number: int = 2, action: str = "created"
    ) -> dict[str, Any]:
        """issue_comment adjusted: `login` commented `body` on PR `number` (the comment is
        stored in the fake, so reactions land on it)."""
        event = load_event("issue_comment.created")
        event["action"] = action
        event["repository"]["default_branch"] = "main"
        event["issue"]["number"] = number
        event["issue"]["pull_request"] = {
            "url": f"https://api.github.com/repos/{REPOSITORY}/pulls/{number}"
        }
        comment = self.github.add_comment(REPOSITORY, number, body, login)
        event["comment"].update({"id": comment["id"], "body": body})
        event["comment"]["user"].update({"login": login, "type": comment["user"]["type"]})
        return event

    def push_event(self, branch: str, sha: str) -> dict[str, Any]:
        """push adjusted: `branch`@`sha`, default branch main."""
        event = load_event("push")
        event.update({"ref": f"refs/heads/{branch}", "after": sha})
        event["repository"]["default_branch"] = "main"
        return event

    def env(
        self, event_name: str, event: dict[str, Any], workspace: Path, inputs: dict[str, str]
    ) -> dict[str, str]:
        """The runner's variables for one step: every action.yml input is set, to its default
        (`${{ github.token }}` becomes `TOKEN`) unless `inputs` gives it."""
        n = self.runs
        event_path = self.root / f"event{n}.json"
        event_path.write_text(json.dumps(event), encoding="utf-8")
        home = self.root / f"home{n}"
        home.mkdir(exist_ok=True)
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("GIT_", "INPUT_", "GITHUB_", "FIXBOT_"))
        }
        env = {
            **base,
            "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
            "HOME": str(home),
            "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_API_URL": self.github.url,
            "GITHUB_GRAPHQL_URL": self.github.url + "/graphql",
            "GITHUB_SERVER_URL": self.server.as_uri(),
            "GITHUB_RUN_ID": RUN_ID,
            "GITHUB_OUTPUT": str(self.root / f"output{n}"),
            "GITHUB_STEP_SUMMARY": str(self.root / f"summary{n}.md"),
        }
        for name, spec in action_inputs().items():
            default = str(spec.get("default", ""))
            env["INPUT_" + name.upper()] = TOKEN if "github.token" in default else default
        env.update({"INPUT_" + k.upper(): v for k, v in inputs.items()})
        return env

    def run(
        self, env: dict[str, str], timeout: float = 120, command: list[str] | None = None
    ) -> ActionRun:
        """Run `python -m fixbot action` (or `command`) in the workspace with `env`."""
        done = subprocess.run(
            command or [sys.executable, "-m", "fixbot", "action"],
            cwd=env["GITHUB_WORKSPACE"],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        output = Path(env["GITHUB_OUTPUT"])
        summary = Path(env["GITHUB_STEP_SUMMARY"])
        return ActionRun(
            done.returncode,
            done.stdout,
            done.stderr,
            parse_outputs(output.read_text(encoding="utf-8")) if output.exists() else {},
            summary.read_text(encoding="utf-8") if summary.exists() else "",
        )
