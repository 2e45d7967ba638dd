"""Markdown bodies fixbot writes on GitHub: the status comment, PR and issue bodies, the summary.

All pure. Bodies stay under GitHub's 65,536-character limit for issue, pull request and comment
bodies (the REST API answers 422 "body is too long" beyond it), cut with a pointer to the job
summary where the whole report is.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from fixbot.core.models import Outcome, OutcomeKind, ReviewThread
from fixbot.github.events.threads import ThreadsReport
from fixbot.github.publish.dispatch import Dispatched
from fixbot.github.publish.dispatch import lines as dispatch_lines
from fixbot.github.publish.memory import Rerun, Verdict, neutralize

BODY_LIMIT = 65_536
SHORT_SHA = 7
STATUS_MARKER = "<!-- fixbot:status -->"
TOKEN_NOTE = (
    "Commits pushed with the workflow's `GITHUB_TOKEN` do not start new workflow runs, so the "
    "checks of this pull request will not re-run by themselves: name your CI workflow in "
    "`dispatch-workflows:` (fixbot then dispatches it on the branch; it needs `actions: write` "
    "and `on: workflow_dispatch`), or give fixbot a GitHub App token or a fine-grained PAT "
    "(`github-token:` input)."
)
TITLES = {
    OutcomeKind.PASSED: "✅ fixbot: the check passes",
    OutcomeKind.FIXED: "🔧 fixbot fixed the check",
    OutcomeKind.ESCALATED: "🛑 fixbot could not fix the check",
    OutcomeKind.REFUSED: "⏭️ fixbot did not run",
    OutcomeKind.ERROR: "⚠️ fixbot hit an error",
}


class Links(BaseModel):
    """URLs of what a run published, and of the run itself."""

    run_url: str
    commit_url: str | None = None
    pr_url: str | None = None
    issue_url: str | None = None
    branch: str | None = None
    pushed_with_github_token: bool = False
    dispatched: list[Dispatched] = Field(default_factory=list)  # CI runs started on the push
    review_url: str | None = None  # `on-success: suggest`: the review holding the fix
    suggestions: int = 0  # its suggestion blocks
    in_body: int = 0  # its hunks put in the review body as a patch


class Report(BaseModel):
    """What the bodies show: the outcome, the engine's markdown report, notes, a patch, and the
    pull request's review threads (None when none were given to the model)."""

    outcome: Outcome
    report: str = ""
    notes: list[str] = Field(default_factory=list)
    patch: str | None = None
    links: Links
    threads: ThreadsReport | None = None
    reruns: list[Rerun] = Field(default_factory=list)  # CI runs re-run as suspected flakes
    seconds: float | None = None  # the run's wall time (for a fix: its time to green)
    tokens: int | None = None  # model tokens the run used


def duration(seconds: float) -> str:
    """`seconds` as `1 h 2 min`, `3 min 4 s` or `5 s`."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def issue_marker(branch: str) -> str:
    """The hidden marker identifying the one escalation issue of `branch`."""
    return f"<!-- fixbot:escalation branch={branch} -->"


def bound(body: str, run_url: str, limit: int = BODY_LIMIT) -> str:
    """Cut `body` to fit `limit` characters, ending with a pointer to the run's summary."""
    if len(body) <= limit:
        return body
    tail = (
        f"\n\n… truncated: GitHub limits bodies to {limit:,} characters; "
        f"the full report is in the [job summary]({run_url}).\n"
    )
    return body[: limit - len(tail)] + tail


def _facts(data: Report) -> list[str]:
    out, links = data.outcome, data.links
    lines = [f"**{out.outcome.value}**: {out.reason}", ""]
    lines.append(f"- attempts: {out.attempts}")
    if out.cost_usd is not None:
        lines.append(f"- model cost: ${out.cost_usd:.4f}")
    if data.tokens:
        lines.append(f"- model tokens: {data.tokens:,}")
    if data.seconds is not None:
        label = "time to green" if out.outcome is OutcomeKind.FIXED else "wall time"
        lines.append(f"- {label}: {duration(data.seconds)}")
    for label, url in (
        ("commit", links.commit_url),
        ("pull request", links.pr_url),
        ("issue", links.issue_url),
        ("review with suggestions", links.review_url),
    ):
        if url:
            lines.append(f"- {label}: {url}")
    if links.branch:
        lines.append(f"- branch: `{links.branch}`")
    lines.extend(dispatch_lines(links.dispatched))
    lines.append(f"- run: {links.run_url}")
    lines.extend(f"- note: {note}" for note in data.notes)
    return lines


def _thread_line(thread: ReviewThread) -> str:
    where = f"{thread.path}:{thread.line}" if thread.line else thread.path
    label = f"`{where.replace('`', '')}`"
    link = f"[{label}]({thread.url})" if thread.url else label
    return f"- {link} by @{thread.author}"


def _listed(title: str, items: Iterable[str]) -> list[str]:
    """`title (n):` then the `items`; nothing when there are none."""
    shown = list(items)
    return [f"{title} ({len(shown)}):", *shown] if shown else []


def threads_section(threads: ThreadsReport | None, heading: str = "####") -> list[str]:
    """The review threads fixbot addressed (replied to and resolved) and those it left open.

    Only paths, lines, links and authors are shown: the thread bodies are untrusted text.
    """
    if threads is None or not (threads.resolved or threads.open or threads.left_out):
        return []
    lines = ["", f"{heading} Review threads", ""]
    lines += _listed("Addressed, replied to and resolved", map(_thread_line, threads.resolved))
    lines += _listed("Not addressed, left open", map(_thread_line, threads.open))
    lines += _listed(
        "Not given to the model, left open",
        (f"{_thread_line(item.thread)}: {item.reason}" for item in threads.left_out),
    )
    if threads.note:
        lines += ["", f"> {threads.note}"]
    return lines


def how_to_apply(links: Links) -> list[str]:
    """How a maintainer applies the fix posted as a review with suggestions (none without)."""
    if not links.review_url:
        return []
    patch = (
        f"; {links.in_body} change(s) outside the lines a review comment may sit on are in the "
        "review's body as a patch for `git apply`"
        if links.in_body
        else ""
    )
    return [
        "",
        f"> Nothing was pushed: the verified fix is [a review]({links.review_url}) with "
        f"{links.suggestions} suggestion(s). Apply it in **Files changed**: **Commit "
        f"suggestions** (add them to a batch first to make one commit){patch}.",
    ]


def _attempt(rerun: Rerun, n: int) -> str:
    return f"[attempt {n}]({rerun.url}/attempts/{n})" if rerun.url else f"attempt {n}"


def rerun_line(rerun: Rerun) -> list[str]:
    """One CI run fixbot re-ran, with both attempts linked and what the re-run showed."""
    head = f"- run {rerun.run} on `{rerun.sha[:SHORT_SHA]}` ({rerun.why}): "
    first, again = _attempt(rerun, 1), _attempt(rerun, rerun.attempt or 2)
    if rerun.verdict is Verdict.PENDING:
        return [f"{head}{first} failed; its failed jobs were re-run, the outcome is not in yet"]
    if rerun.verdict is Verdict.REAL:
        return [f"{head}{first} failed, {again} failed again: **real**, not a flake"]
    lines = [f"{head}{first} failed, {again} passed on the same commit: **flaky**"]
    if rerun.suspects:
        files = ", ".join(f"`{name}`" for name in rerun.suspects)
        lines.append(
            f"  - the failing log names {files}, which this pull request changed: the flake "
            "may be the pull request's own; look at it before merging"
        )
    return lines


def reruns_section(reruns: list[Rerun], heading: str = "####") -> list[str]:
    """The CI runs fixbot re-ran as suspected flakes, newest last (none: no lines)."""
    if not reruns:
        return []
    lines = ["", f"{heading} CI runs re-run as suspected flakes", ""]
    for rerun in reruns:
        lines += rerun_line(rerun)
    return lines


def _details(title: str, text: str, fence: str = "") -> list[str]:
    if not text.strip():
        return []
    body = f"```{fence}\n{text.rstrip()}\n```" if fence else text.rstrip()
    return ["", f"<details><summary>{title}</summary>", "", body, "", "</details>"]


def status_comment(data: Report, memory: str = "") -> str:
    """The one status comment of a pull request (found again by `STATUS_MARKER` and fixbot's
    login), ending with the hidden run history block `memory`; within `BODY_LIMIT` in all."""
    lines = [STATUS_MARKER, f"### {TITLES[data.outcome.outcome]}", "", *_facts(data)]
    if data.links.pushed_with_github_token and not data.links.dispatched:
        lines += ["", f"> {TOKEN_NOTE}"]
    lines += how_to_apply(data.links)
    lines += threads_section(data.threads)
    lines += reruns_section(data.reruns)
    if data.patch:
        lines += ["", "Apply it with `git apply`:"]
        lines += _details("patch", data.patch, "diff")
    lines += _details("report", data.report)
    tail = f"\n{memory}\n" if memory else ""
    # The visible part quotes the model and the check: no marker in it may read as the history.
    visible = neutralize("\n".join(lines) + "\n")
    return bound(visible, data.links.run_url, BODY_LIMIT - len(tail)) + tail


def pull_request_body(data: Report) -> str:
    """The body of the pull request fixbot opens (a fix, or a draft escalation)."""
    lines = [f"### {TITLES[data.outcome.outcome]}", "", *_facts(data)]
    if data.outcome.outcome is OutcomeKind.ESCALATED:
        lines += [
            "",
            "This draft holds fixbot's best attempt (fewest failures); it does not pass the check.",
            "",
        ]
        lines.append(data.report)
    else:
        note = [] if data.links.dispatched else ["", f"> {TOKEN_NOTE}"]
        lines += [*note, *_details("report", data.report)]
    return bound("\n".join(lines) + "\n", data.links.run_url)


def issue_title(branch: str) -> str:
    """The title of the escalation issue of `branch`."""
    return f"fixbot: the check fails on `{branch}`"


def issue_body(data: Report, branch: str) -> str:
    """The body of the escalation issue of `branch` (replaced on every escalated run)."""
    lines = [
        issue_marker(branch),
        f"### {TITLES[data.outcome.outcome]}",
        "",
        *_facts(data),
        "",
        data.report,
    ]
    return bound("\n".join(lines) + "\n", data.links.run_url)


def summary(data: Report) -> str:
    """The job summary (bounded to 1 MiB by `workflow.write_summary`)."""
    lines = [f"## {TITLES[data.outcome.outcome]}", "", *_facts(data)]
    lines += threads_section(data.threads, "###")
    lines += reruns_section(data.reruns, "###")
    if data.patch:
        lines += ["", "### Patch", "", f"```diff\n{data.patch.rstrip()}\n```"]
    if data.report.strip():
        lines += ["", "### Report", "", data.report]
    return "\n".join(lines) + "\n"
