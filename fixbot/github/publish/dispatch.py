"""CI runs again on fixbot's commit: which workflows to dispatch, and how to report them.

Pure. A push made with the workflow's `GITHUB_TOKEN` starts no workflow run, except
`workflow_dispatch` and `repository_dispatch`
(https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication#using-the-github_token-in-a-workflow).
So after such a push fixbot dispatches the repository's CI workflow(s) on the pushed branch
(`POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches`); the new runs check
the pushed commit and report on it like any run.

The rule for "a push made with `GITHUB_TOKEN`": the token has no user (`GET /user` answers 403,
which `fixbot.github.api.rest.GitHub.login` reads as `github-actions[bot]`). A GitHub App's
installation token answers the same although its pushes do start workflows: with one, set
`dispatch-workflows: none`. A personal access token has a user: nothing is dispatched.
"""

from __future__ import annotations

from pydantic import BaseModel

from fixbot.github.events.data import Event

OFF = "none"  # `dispatch-workflows: none`
WAITING = ("action_required", "waiting")  # a run waiting for a maintainer's approval
MISSING_TRIGGER = "workflow_dispatch"  # GitHub's 422: "Workflow does not have 'workflow_dispatch'
# trigger" (https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event)


class Dispatched(BaseModel):
    """One dispatched workflow: the new run (`run_id`, `url`, `status`), or why there is none
    (`problem`, a sentence saying what to do)."""

    workflow: str
    branch: str
    run_id: int | None = None
    url: str | None = None
    status: str | None = None
    problem: str | None = None

    @property
    def waiting(self) -> bool:
        """True when the new run waits for a maintainer's approval."""
        return self.status in WAITING


def targets(configured: list[str], event: Event, job_token: bool) -> list[str]:
    """The workflows to dispatch after a push: none unless the push was made with the job's
    token (`job_token`); the `dispatch-workflows` setting (`configured`), else on
    `workflow_run` the workflow whose failure started it. `none` dispatches nothing."""
    wanted = [w.strip() for w in configured if w.strip()]
    if not job_token or [w.lower() for w in wanted] == [OFF]:
        return []
    if wanted:
        return list(dict.fromkeys(wanted))
    return [event.run_workflow] if event.run_workflow else []


def missing_trigger(workflow: str, branch: str) -> str:
    """What to add when `workflow` has no `on: workflow_dispatch` on `branch`."""
    return (
        f"`{workflow}` cannot be dispatched: GitHub found no `on: workflow_dispatch` in it on "
        f"`{branch}`. Add `workflow_dispatch:` under `on:` in `.github/workflows/{workflow}` "
        "so fixbot can start CI on its commits"
    )


def lines(dispatched: list[Dispatched]) -> list[str]:
    """Markdown list items for the status comment and the summary, one per workflow."""
    found = []
    for item in dispatched:
        name = f"`{item.workflow}` on `{item.branch}`"
        if item.problem:
            found.append(f"- CI not re-run: {item.problem}")
        elif item.waiting:
            found.append(
                f"- CI re-run {name}: {item.url or item.run_id} waits for a maintainer's "
                "approval (`action_required`): approve it in the Actions tab"
            )
        else:
            state = f" ({item.status})" if item.status else ""
            found.append(f"- CI re-run {name}: {item.url or item.run_id}{state}")
    return found
