"""A fake GitHub REST server on 127.0.0.1: pull requests, issues, comments and labels.

It keeps state per repository (`FakeGitHub.repos["owner/name"]`), records every request in
`requests` (method, path, matched route template, query, JSON body, headers) and answers 404 to
any route it does not know (recorded in `unmatched`). Route templates are written exactly as in
GitHub's OpenAPI description so tests can check them against `tests/data/github-rest-routes.txt`.
`fail(method, route, status, times, headers, body)` makes the next `times` matching requests fail.

People and runs: `GET /user` answers `token_login` (403 like an installation token when None),
`RepoState.permissions` maps logins to roles for the collaborator permission route (unknown
logins answer 404; the author of a pull request from a branch of the repository itself, who
pushed that branch, is a writer unless a test set a role: `push_author`), `RepoState.runs` maps
workflow run ids to their status, and reactions on
issue comments are kept in each comment's `reactions` list. Comments are written as
`token_login` (or github-actions[bot]); `add_comment` adds one by someone else.
Workflow runs (`add_run`): the run, its jobs, each job's log (a 302 to a plain-text download
under `/_blob/`, as GitHub redirects to its storage), and re-running the failed jobs (recorded
in `RepoState.reruns`). `add_pull` stores a pull request with an author, labels and a draft flag.

`POST /graphql` runs GraphQL against GitHub's schema (see `tests.fakes.github_graphql`): review
threads per pull request (`add_thread`, `RepoState.threads`), the reply and resolve mutations
(recorded in `mutations`), and scripted GraphQL errors (`fail_graphql`).

    with FakeGitHub() as gh:
        env["GITHUB_API_URL"] = gh.url
        ...
        assert gh.repo("o/r").pulls[0]["head"]["ref"] == "fixbot/main-1"
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.fakes import github_graphql
from tests.fakes.serve import serve

Json = dict[str, Any]
GRAPHQL_ROUTE = "POST /graphql"


@dataclass
class Recorded:
    """One request the server received."""

    method: str
    path: str
    route: str | None  # the matched "METHOD /template", None when unmatched
    query: dict[str, list[str]]
    body: Any
    headers: dict[str, str]


@dataclass
class Failure:
    """A scripted failure for the next `times` requests to `method route`."""

    method: str
    route: str
    status: int
    times: int
    headers: dict[str, str]
    body: Json


@dataclass
class GraphQLFailure:
    """Scripted GraphQL `errors` for the next `times` requests whose document names `field`."""

    field: str
    errors: list[Json]
    times: int


@dataclass
class RepoState:
    """A repository's pull requests, issues (sharing one number space), comments and labels."""

    name: str
    pulls: list[Json] = field(default_factory=list)
    issues: list[Json] = field(default_factory=list)
    comments: list[Json] = field(default_factory=list)
    threads: dict[int, list[Json]] = field(default_factory=dict)  # PR number -> review threads
    permissions: dict[str, str] = field(default_factory=dict)  # login -> role name
    next_number: int = 100
    # run id -> the workflow run (`add_run`), or only its status ("in_progress")
    runs: dict[int, Json | str] = field(default_factory=dict)
    jobs: dict[int, list[Json]] = field(default_factory=dict)  # run id -> its jobs
    reruns: list[int] = field(default_factory=list)  # run ids whose failed jobs were re-run
    # workflow file name -> {"id", "path", "dispatch": has `on: workflow_dispatch`, "approval"}
    workflows: dict[str, Json] = field(default_factory=dict)
    dispatches: list[Json] = field(default_factory=list)  # the bodies of dispatch requests
    # PR number -> its files as `GET .../pulls/{n}/files` lists them (filename, status, patch)
    pull_files: dict[int, list[Json]] = field(default_factory=dict)
    reviews: list[Json] = field(default_factory=list)  # reviews posted (with pull_number)


@dataclass
class Redirect:
    """A handler's answer that redirects (302) to `url`."""

    url: str


@dataclass
class Text:
    """A handler's plain-text answer (a log download)."""

    text: str


class FakeGitHub:
    """The server; `url` is its base URL (use it as `GITHUB_API_URL`)."""

    def __init__(self) -> None:
        self.repos: dict[str, RepoState] = {}
        self.requests: list[Recorded] = []
        self.unmatched: list[Recorded] = []
        self.failures: list[Failure] = []
        self.graphql_failures: list[GraphQLFailure] = []
        self.mutations: list[tuple[str, Json]] = []  # (root field, input) of each mutation
        self.logs: dict[int, str] = {}  # job id -> its log text, served under BLOB_PREFIX
        self.ids = iter(range(1000, 10**9))
        self.token_login: str | None = None  # None: GET /user answers 403 (GITHUB_TOKEN)
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = serve(self.server)

    def __enter__(self) -> FakeGitHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def repo(self, name: str) -> RepoState:
        """The state of repository `owner/name`, created empty on first use."""
        return self.repos.setdefault(name.lower(), RepoState(name))

    def fail(
        self,
        method: str,
        route: str,
        status: int,
        times: int = 1,
        headers: dict[str, str] | None = None,
        body: Json | None = None,
    ) -> None:
        """Answer the next `times` requests to `method route` with `status`."""
        message = {"message": f"scripted {status}"} if body is None else body
        self.failures.append(Failure(method, route, status, times, headers or {}, message))

    def fail_graphql(self, field: str, kind: str, message: str, times: int = 1) -> None:
        """Answer the next `times` GraphQL requests naming `field` with a GitHub-style error."""
        errors = [{"type": kind, "message": message, "path": [field]}]
        self.graphql_failures.append(GraphQLFailure(field, errors, times))

    def add_thread(
        self,
        repo: str,
        number: int,
        path: str,
        body: str,
        *,
        line: int | None = 1,
        author: str = "octocat",
        resolved: bool = False,
        outdated: bool = False,
    ) -> str:
        """Add a review thread on `path` to PR `number` of `repo`; return its node id."""
        threads = self.repo(repo).threads.setdefault(number, [])
        thread_id = f"PRRT_{next(self.ids)}"
        threads.append(
            github_graphql.thread_json(thread_id, path, line, body, author, resolved, outdated)
        )
        return thread_id

    def add_comment(self, repo: str, number: int, body: str, login: str) -> Json:
        """A comment by `login` on issue or pull request `number` (for commands and spoofs)."""
        state = self.repo(repo)
        cid = next(self.ids)
        comment = {
            "id": cid,
            "issue_number": number,
            "url": f"{self._base(state)}/issues/comments/{cid}",
            "html_url": f"{self._html(state, 'pull', number)}#issuecomment-{cid}",
            "body": body,
            "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
            "reactions": [],
            "created_at": _now(),
            "updated_at": _now(),
        }
        state.comments.append(comment)
        return comment

    def add_run(
        self,
        repo: str,
        run_id: int,
        head_sha: str,
        branch: str,
        jobs: list[tuple[str, str, list[tuple[str, str]], str]],
        attempt: int = 1,
    ) -> Json:
        """Add a completed, failed workflow run; `jobs` are (name, conclusion, steps as (name,
        conclusion), log text). Returns the run as the REST API shapes it."""
        state = self.repo(repo)
        base = f"{self._base(state)}/actions"
        run: Json = {
            "id": run_id,
            "name": "CI",
            "head_sha": head_sha,
            "head_branch": branch,
            "run_attempt": attempt,
            "status": "completed",
            "conclusion": "failure",
            "url": f"{base}/runs/{run_id}",
            "jobs_url": f"{base}/runs/{run_id}/jobs",
            "html_url": f"https://github.example/{state.name}/actions/runs/{run_id}",
        }
        state.runs[run_id] = run
        state.jobs[run_id] = []
        for name, conclusion, steps, log in jobs:
            job_id = next(self.ids)
            self.logs[job_id] = log
            state.jobs[run_id].append(
                {
                    "id": job_id,
                    "run_id": run_id,
                    "name": name,
                    "status": "completed",
                    "conclusion": conclusion,
                    "url": f"{base}/jobs/{job_id}",
                    "html_url": f"https://github.example/{state.name}/actions/runs/{run_id}/job/{job_id}",
                    "steps": [
                        {"number": n, "name": step, "status": "completed", "conclusion": result}
                        for n, (step, result) in enumerate(steps, start=1)
                    ],
                }
            )
        return run

    def add_workflow(
        self, repo: str, file: str, dispatch: bool = True, approval: bool = False
    ) -> Json:
        """A workflow `.github/workflows/<file>`; `dispatch`: it has `on: workflow_dispatch`;
        `approval`: its dispatched runs wait for a maintainer's approval (`action_required`)."""
        state = self.repo(repo)
        flow = {
            "id": next(self.ids),
            "path": f".github/workflows/{file}",
            "dispatch": dispatch,
            "approval": approval,
        }
        state.workflows[file] = flow
        return flow

    def push_author(self, repo: str, login: str) -> None:
        """`login` pushed a branch to `repo` (a same-repository pull request's author): a writer,
        as GitHub requires for a push, unless the test gave `login` a role already. Where
        fixbot shares its uid with the commands (the runner mode without passwordless sudo) it
        asks exactly this before it runs the pull request's code."""
        self.repo(repo).permissions.setdefault(login, "write")

    def add_pull(
        self,
        repo: str,
        number: int,
        head: tuple[str, str],
        author: str = "octocat",
        labels: tuple[str, ...] = (),
        draft: bool = False,
        base: str = "main",
    ) -> Json:
        """Add an open pull request `number` from branch `head` = (ref, sha) into `base`."""
        state = self.repo(repo)
        issue = self.issue_json(state, number, {"title": "a change", "labels": list(labels)}, True)
        issue["user"] = {"login": author, "type": "Bot" if author.endswith("[bot]") else "User"}
        state.issues.append(issue)
        self.push_author(repo, author)
        pull = {
            **issue,
            "url": f"{self._base(state)}/pulls/{number}",
            "draft": draft,
            "head": {"ref": head[0], "sha": head[1], "label": head[0]},
            "base": {"ref": base, "sha": "0" * 40, "label": base},
        }
        state.pulls.append(pull)
        return pull

    def review_thread(self, thread_id: str) -> Json:
        """The stored review thread `thread_id` (its comments include fixbot's replies)."""
        return github_graphql.find_thread(self, thread_id)[1]

    def routes_called(self) -> set[str]:
        """`METHOD /route/template` of every matched request."""
        return {r.route for r in self.requests if r.route}

    # ---- helpers used by the handlers

    def _base(self, repo: RepoState) -> str:
        return f"{self.url}/repos/{repo.name}"

    def _html(self, repo: RepoState, kind: str, number: int) -> str:
        return f"https://github.example/{repo.name}/{kind}/{number}"

    def _number(self, repo: RepoState) -> int:
        repo.next_number += 1
        return repo.next_number

    def issue_json(self, repo: RepoState, number: int, body: Json, pull: bool = False) -> Json:
        """A new issue (or a pull request's issue side) as the REST API shapes it."""
        base = self._base(repo)
        item: Json = {
            "id": next(self.ids),
            "node_id": f"I_{number}",
            "number": number,
            "url": f"{base}/issues/{number}",
            "html_url": self._html(repo, "pull" if pull else "issues", number),
            "comments_url": f"{base}/issues/{number}/comments",
            "labels_url": f"{base}/issues/{number}/labels{{/name}}",
            "title": body.get("title", ""),
            "body": body.get("body"),
            "state": "open",
            "labels": [{"name": name} for name in body.get("labels", [])],
            "user": {"login": "github-actions[bot]", "type": "Bot"},
            "created_at": _now(),
            "updated_at": _now(),
        }
        if pull:
            item["pull_request"] = {"url": f"{base}/pulls/{number}"}
        return item


Handler = Callable[
    [FakeGitHub, RepoState, dict[str, str], Json, dict[str, list[str]]], tuple[int, Any]
]


def _find(items: list[Json], number: int) -> Json | None:
    return next((i for i in items if i["number"] == number), None)


def _create_pull(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    for key in ("base", "head", "title"):
        if not body.get(key):
            return 422, {
                "message": "Validation Failed",
                "errors": [{"field": key, "code": "missing_field"}],
            }
    if any(p["head"]["ref"] == body["head"] and p["state"] == "open" for p in repo.pulls):
        return 422, {"message": f"A pull request already exists for {body['head']}."}
    number = gh._number(repo)
    issue = gh.issue_json(repo, number, body, pull=True)
    repo.issues.append(issue)
    pull = {
        **issue,
        "url": f"{gh._base(repo)}/pulls/{number}",
        "issue_url": f"{gh._base(repo)}/issues/{number}",
        "draft": bool(body.get("draft", False)),
        "head": {"ref": body["head"], "label": body["head"], "sha": "0" * 40},
        "base": {"ref": body["base"], "label": body["base"], "sha": "0" * 40},
    }
    repo.pulls.append(pull)
    return 201, pull


def _list_pulls(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    state = q.get("state", ["open"])[0]
    return 200, [p for p in repo.pulls if state == "all" or p["state"] == state]


def _get_pull(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    pull = _find(repo.pulls, int(args["pull_number"]))
    return (200, pull) if pull else (404, {"message": "Not Found"})


def _get_issue(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    issue = _find(repo.issues, int(args["issue_number"]))
    return (200, issue) if issue else (404, {"message": "Not Found"})


def _edit_issue(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    issue = _find(repo.issues, int(args["issue_number"]))
    if issue is None:
        return 404, {"message": "Not Found"}
    issue.update({k: v for k, v in body.items() if k in ("title", "body", "state")})
    return 200, issue


def _list_issues(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    state = q.get("state", ["open"])[0]
    wanted = set(filter(None, q.get("labels", [""])[0].split(",")))
    found = [
        i
        for i in repo.issues
        if (state == "all" or i["state"] == state)
        and wanted <= {lab["name"] for lab in i["labels"]}
    ]
    return 200, found


def _create_issue(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    if not body.get("title"):
        return 422, {"message": "Validation Failed"}
    issue = gh.issue_json(repo, gh._number(repo), body)
    repo.issues.append(issue)
    return 201, issue


def _add_labels(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    issue = _find(repo.issues, int(args["issue_number"]))
    if issue is None:
        return 404, {"message": "Not Found"}
    given = body if isinstance(body, list) else body.get("labels", [])  # OpenAPI: oneOf both
    names = {lab["name"] for lab in issue["labels"]} | {str(n) for n in given}
    issue["labels"] = [{"name": name} for name in sorted(names)]
    for pull in repo.pulls:
        if pull["number"] == issue["number"]:
            pull["labels"] = issue["labels"]
    return 200, issue["labels"]


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _repo_comments(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    since = q.get("since", [""])[0]  # ISO 8601: comments updated at or after it
    return 200, [c for c in repo.comments if c.get("updated_at", "") >= since]


def _list_comments(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    number = int(args["issue_number"])
    if _find(repo.issues, number) is None:
        return 404, {"message": "Not Found"}
    return 200, [c for c in repo.comments if c["issue_number"] == number]


def _create_comment(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    number = int(args["issue_number"])
    if _find(repo.issues, number) is None:
        return 404, {"message": "Not Found"}
    if len(body.get("body", "")) > 65_536:
        return 422, {"message": "Validation Failed: body is too long (maximum is 65536 characters)"}
    cid = next(gh.ids)
    comment = {
        "id": cid,
        "issue_number": number,
        "url": f"{gh._base(repo)}/issues/comments/{cid}",
        "html_url": f"{gh._html(repo, 'pull', number)}#issuecomment-{cid}",
        "body": body.get("body", ""),
        "user": {"login": gh.token_login or "github-actions[bot]", "type": "Bot"},
        "reactions": [],
        "created_at": _now(),
        "updated_at": _now(),
    }
    repo.comments.append(comment)
    return 201, comment


def _edit_comment(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    comment = next((c for c in repo.comments if c["id"] == int(args["comment_id"])), None)
    if comment is None:
        return 404, {"message": "Not Found"}
    if len(body.get("body", "")) > 65_536:
        return 422, {"message": "Validation Failed: body is too long (maximum is 65536 characters)"}
    comment["body"] = body.get("body", "")
    comment["updated_at"] = _now()
    return 200, comment


def _user(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    if gh.token_login is None:
        return 403, {"message": "Resource not accessible by integration"}
    return 200, {"login": gh.token_login, "type": "User"}


CLASSIC = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read"}


def _permission(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    role = repo.permissions.get(args["username"])
    if role is None:
        return 404, {"message": "Not Found"}
    user = {"login": args["username"], "type": "User"}
    return 200, {"permission": CLASSIC.get(role, role), "role_name": role, "user": user}


def _react(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    comment = next((c for c in repo.comments if c["id"] == int(args["comment_id"])), None)
    if comment is None:
        return 404, {"message": "Not Found"}
    if body.get("content") not in (
        "+1",
        "-1",
        "laugh",
        "confused",
        "heart",
        "hooray",
        "rocket",
        "eyes",
    ):
        return 422, {"message": "Validation Failed"}
    comment.setdefault("reactions", []).append(body["content"])
    return 201, {"id": next(gh.ids), "content": body["content"]}


def _get_run(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    run = repo.runs.get(int(args["run_id"]))
    if isinstance(run, str):  # only a status was recorded (the "already running" check)
        return 200, {"id": int(args["run_id"]), "status": run}
    return (200, run) if run else (404, {"message": "Not Found"})


def _list_jobs(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    jobs = repo.jobs.get(int(args["run_id"]))
    if jobs is None:
        return 404, {"message": "Not Found"}
    return 200, {"total_count": len(jobs), "jobs": jobs}


def _job_logs(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    job_id = int(args["job_id"])
    if job_id not in gh.logs:
        return 404, {"message": "Not Found"}
    return 302, Redirect(f"{gh.url}{BLOB_PREFIX}{job_id}?sig=fake")


def _rerun_failed_jobs(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    run_id = int(args["run_id"])
    if run_id not in repo.runs:
        return 404, {"message": "Not Found"}
    repo.reruns.append(run_id)
    return 201, {}


def _dispatch(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    key = args["workflow_id"]
    flow = repo.workflows.get(key) or next(
        (f for f in repo.workflows.values() if str(f["id"]) == key), None
    )
    if flow is None:
        return 404, {"message": "Not Found"}
    if not body.get("ref"):
        return 422, {"message": 'Invalid request. "ref" wasn\'t supplied.'}
    if not flow["dispatch"]:  # GitHub's answer, verbatim
        return 422, {"message": "Workflow does not have 'workflow_dispatch' trigger"}
    repo.dispatches.append({"workflow": flow["path"], **body})
    run_id = next(gh.ids)
    base = f"{gh._base(repo)}/actions/runs/{run_id}"
    html = f"https://github.example/{repo.name}/actions/runs/{run_id}"
    repo.runs[run_id] = {
        "id": run_id,
        "name": flow["path"],
        "event": "workflow_dispatch",
        "head_branch": body["ref"],
        "run_attempt": 1,
        "status": "completed" if flow["approval"] else "queued",
        "conclusion": "action_required" if flow["approval"] else None,
        "url": base,
        "html_url": html,
    }
    if body.get("return_run_details"):
        return 200, {"workflow_run_id": run_id, "run_url": base, "html_url": html}
    return 204, {}


HUNK_RE = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)


def _right_ranges(patch: str) -> list[tuple[int, int]]:
    """The RIGHT-side lines of each hunk of a file's `patch`: where a review comment may sit."""
    return [
        (int(m[1]), int(m[1]) + max(int(m[2] if m[2] is not None else 1), 1) - 1)
        for m in HUNK_RE.finditer(patch)
    ]


def _pull_files(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    number = int(args["pull_number"])
    if _find(repo.pulls, number) is None:
        return 404, {"message": "Not Found"}
    return 200, repo.pull_files.get(number, [])


def _review_comment_problem(files: list[Json], comment: Json) -> str | None:
    """GitHub's 422 reasons for a review comment off the pull request's diff, else None."""
    patch = next((f.get("patch") for f in files if f["filename"] == comment.get("path")), None)
    if not patch:
        return "Path could not be resolved"
    line, start = comment.get("line"), comment.get("start_line", comment.get("line"))
    if comment.get("side", "RIGHT") != "RIGHT" or not isinstance(line, int):
        return "pull_request_review_thread.line must be part of the diff"
    if start > line:
        return "pull_request_review_thread.start_line must precede the end line"
    if not any(a <= start and line <= b for a, b in _right_ranges(patch)):
        return "pull_request_review_thread.line must be part of the diff"
    return None


def _create_review(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    number = int(args["pull_number"])
    if _find(repo.pulls, number) is None:
        return 404, {"message": "Not Found"}
    if len(body.get("body") or "") > 65_536:
        return 422, {"message": "Validation Failed: body is too long (maximum is 65536 characters)"}
    files = repo.pull_files.get(number, [])
    for comment in body.get("comments", []):
        problem = _review_comment_problem(files, comment)
        if problem:
            return 422, {"message": "Unprocessable Entity", "errors": [problem]}
    review_id = next(gh.ids)
    review = {
        "id": review_id,
        "pull_number": number,
        "state": "COMMENTED" if body.get("event") == "COMMENT" else "PENDING",
        "html_url": f"{gh._html(repo, 'pull', number)}#pullrequestreview-{review_id}",
        "user": {"login": gh.token_login or "github-actions[bot]", "type": "Bot"},
        **body,
    }
    repo.reviews.append(review)
    return 200, review


ROUTES: dict[str, Handler] = {
    "GET /user": _user,
    "GET /repos/{owner}/{repo}/collaborators/{username}/permission": _permission,
    "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions": _react,
    "GET /repos/{owner}/{repo}/issues/comments": _repo_comments,
    "GET /repos/{owner}/{repo}/pulls": _list_pulls,
    "POST /repos/{owner}/{repo}/pulls": _create_pull,
    "GET /repos/{owner}/{repo}/pulls/{pull_number}": _get_pull,
    "GET /repos/{owner}/{repo}/pulls/{pull_number}/files": _pull_files,
    "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews": _create_review,
    "GET /repos/{owner}/{repo}/issues": _list_issues,
    "POST /repos/{owner}/{repo}/issues": _create_issue,
    "GET /repos/{owner}/{repo}/issues/{issue_number}": _get_issue,
    "PATCH /repos/{owner}/{repo}/issues/{issue_number}": _edit_issue,
    "POST /repos/{owner}/{repo}/issues/{issue_number}/labels": _add_labels,
    "GET /repos/{owner}/{repo}/issues/{issue_number}/comments": _list_comments,
    "POST /repos/{owner}/{repo}/issues/{issue_number}/comments": _create_comment,
    "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}": _edit_comment,
    "GET /repos/{owner}/{repo}/actions/runs/{run_id}": _get_run,
    "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs": _list_jobs,
    "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs": _job_logs,
    "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs": _rerun_failed_jobs,
    "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches": _dispatch,
}
BLOB_PREFIX = "/_blob/job-logs/"  # the log storage GitHub redirects to (not an API route)


def _pattern(route: str) -> re.Pattern[str]:
    method, path = route.split(" ", 1)
    regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", path)
    return re.compile(f"^{method} {regex}$")


_COMPILED = [(route, _pattern(route), handler) for route, handler in ROUTES.items()]


def _graphql(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    return github_graphql.answer(gh, body)


def _blob(
    gh: FakeGitHub, repo: RepoState, args: dict[str, str], body: Json, q: Any
) -> tuple[int, Any]:
    text = gh.logs.get(int(args["job_id"]))
    return (200, Text(text)) if text is not None else (404, {"message": "Not Found"})


def match(method: str, path: str) -> tuple[str, dict[str, str], Handler] | None:
    """The route template, path arguments and handler for a request, or None."""
    if f"{method} {path}" == GRAPHQL_ROUTE:
        return GRAPHQL_ROUTE, {}, _graphql
    if method == "GET" and path.startswith(BLOB_PREFIX):
        return f"GET {BLOB_PREFIX}", {"job_id": path.removeprefix(BLOB_PREFIX)}, _blob
    for route, pattern, handler in _COMPILED:
        found = pattern.match(f"{method} {path}")
        if found:
            return route, found.groupdict(), handler
    return None


def _handler(gh: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def _serve(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else {}
            found = match(self.command, parts.path)
            record = Recorded(
                self.command,
                parts.path,
                found[0] if found else None,
                parse_qs(parts.query),
                body,
                dict(self.headers.items()),
            )
            with gh.lock:
                gh.requests.append(record)
                status, payload, headers = _answer(gh, found, record)
            kind = "application/json"
            if isinstance(payload, Redirect):
                headers, payload = {**headers, "Location": payload.url}, {}
            if isinstance(payload, Text):
                data, kind = payload.text.encode(), "text/plain"
            else:
                data = b"" if status == 204 else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

    return Handler


def _answer(gh: FakeGitHub, found: Any, record: Recorded) -> tuple[int, Any, dict[str, str]]:
    if found is None:
        gh.unmatched.append(record)
        return 404, {"message": "Not Found (fake GitHub has no such route)"}, {}
    route, args, handler = found
    for failure in gh.failures:
        if failure.times > 0 and route == f"{failure.method} {failure.route}":
            failure.times -= 1
            return failure.status, failure.body, failure.headers
    repo = gh.repo(f"{args['owner']}/{args['repo']}") if "owner" in args else RepoState("")
    try:
        status, payload = handler(gh, repo, args, record.body, record.query)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a bad request body
        return 400, {"message": f"fake GitHub could not handle the request: {exc!r}"}, {}
    return status, payload, {}


@pytest.fixture
def github_server() -> Iterator[FakeGitHub]:
    """A running `FakeGitHub`, shut down after the test."""
    with FakeGitHub() as server:
        yield server
