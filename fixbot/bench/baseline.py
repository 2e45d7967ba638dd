"""The baselines fixbot is measured against, with the same model and budget.

`one_request`: what a user does by hand. The check's failing log (its last `LOG_CHARS`) and
every repository file the log names go to the model in one request, asking for SEARCH/REPLACE
blocks (`fixbot.agent.editblocks`, Aider's format); the reply's blocks are applied inside the
repository (`fixbot.agent.paths` refuses paths outside it and `.git`) and the case is graded
as fixbot's runs are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixbot.agent import paths
from fixbot.agent.editblocks import EditError, apply_block, parse_blocks
from fixbot.agent.tools import read_text
from fixbot.bench.results import (
    CaseResult,
    Grade,
    Job,
    Options,
    Runner,
    case_env,
    copy_repo,
    result,
    run_in,
)

LOG_CHARS = 60_000
MAX_FILE_CHARS = 100_000  # files larger than this are left out of the request
INSTRUCTIONS = """You fix a failing check. The check command is: {check}
Reply with edits as SEARCH/REPLACE blocks: the file path on its own line, then
<<<<<<< SEARCH
exact old lines, copied from the file
=======
new lines
>>>>>>> REPLACE
The SEARCH part must match the file exactly once. Do not weaken or delete tests."""


def prompt(job: Job, log: str, repo: Path) -> list[dict[str, str]]:
    """The baseline's one request: instructions, the log's tail, every file the log names."""
    from fixbot.logs.signature import parse_locations

    files = []
    for loc in parse_locations(log, repo):
        try:
            target = paths.resolve(repo, loc.path)
        except paths.PathRefused:
            continue
        text = read_text(target) if target.is_file() else None
        block = f"{loc.path}\n```\n{text}```"
        if text is not None and len(text) <= MAX_FILE_CHARS and block not in files:
            files.append(block)
    user = f"The check failed. Its output:\n```\n{log[-LOG_CHARS:]}\n```\n\n" + "\n\n".join(files)
    system = INSTRUCTIONS.format(check=job.check)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def apply_reply(repo: Path, reply: str) -> list[str]:
    """Apply the SEARCH/REPLACE blocks of `reply` in `repo`; one line per block that failed."""
    try:
        blocks = parse_blocks(reply)
    except EditError as exc:
        return [str(exc)]
    problems = []
    for block in blocks:
        try:
            target = paths.resolve(repo, block.path, write=True)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(apply_block(read_text(target), block), encoding="utf-8")
        except (paths.PathRefused, EditError, OSError) as exc:
            problems.append(f"{block.path}: {exc}")
    return problems


def _ask(options: Options, messages: list[dict[str, str]], env: dict[str, str]) -> Any:
    from fixbot.agent.llm import litellm_module

    litellm = litellm_module()
    return litellm.completion(
        model=options.model,
        messages=messages,
        api_base=options.api_base,
        timeout=min(options.request_timeout, options.budget.seconds),
        temperature=0,
    )


def one_request(job: Job, options: Options, work: Path) -> CaseResult:
    """The one-request baseline on a copy of the case (module docstring)."""
    if not options.model:
        return result(job, Runner.BASELINE, Grade.ERROR, reason="the baseline needs --model")
    repo = copy_repo(job.repo, work / "repo")
    env = case_env(job)
    run_in(job.check, repo, env, work / "baseline-check.log")
    log = (work / "baseline-check.log").read_text(errors="replace")
    messages = prompt(job, log, repo)
    try:
        response = _ask(options, messages, env)
    except Exception as exc:  # litellm raises its own classes per provider: report any of them
        # no reply is no fix: graded like fixbot's own run when its model fails (escalated)
        reason = f"the model request failed: {type(exc).__name__}: {exc}"
        return result(job, Runner.BASELINE, Grade.ESCALATED, reason=reason, model_calls=1)
    reply = response.choices[0].message.content or ""
    problems = apply_reply(repo, reply)
    usage = getattr(response, "usage", None)
    tokens = int(getattr(usage, "total_tokens", 0) or 0)
    return result(
        job,
        Runner.BASELINE,
        Grade.ESCALATED,  # graded on the final tree afterwards
        model_calls=1,
        attempts=1,
        tokens=tokens,
        usd=_cost(response),
        notes=problems,
    )


def _cost(response: Any) -> float | None:
    from fixbot.agent.llm import litellm_module

    try:
        return float(litellm_module().completion_cost(completion_response=response))
    except Exception:  # litellm raises for a model without a price: the cost is unknown
        return None
