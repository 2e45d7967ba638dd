"""The deterministic fix-command fixer, and the chain that runs fixers in order.

Both are `fixbot.core.roles.Fixer`s.

A fixer changes files in the working tree to address one failure; the engine then verifies by
re-running the check. Fixers never commit and never run the check themselves.
"""

from __future__ import annotations

from pathlib import Path

from fixbot.core.models import FixContext, FixResult
from fixbot.core.roles import Fixer
from fixbot.process import git
from fixbot.process.launcher import Launcher


class FixCommandFixer:
    """Run each `--fix-command` in order (e.g. `ruff check --fix`) and keep what they changed.

    Each command runs through `launcher` (the one way fixbot runs a project command: own process
    group killed on timeout, scrubbed environment, unprivileged user, bounded redacted log) in
    `cwd` (default: the repository), for at most `timeout` seconds; its log is
    `<state_dir>/attempts/NNN/fix-command-N.log`. A command's exit code is recorded in the
    summary but does not stop the others: linters exit non-zero when problems remain after
    fixing. `files_changed` are the files whose content differs after the commands (measured
    before and after them in fixbot's clone, where the launcher brought back the regular files
    each command changed in the workspace), never anything under the state folder. What the
    launcher refused to bring back (a link, a special file, a protected path) is named in the
    summary.
    """

    name = "fix-commands"

    def __init__(
        self,
        commands: list[str],
        launcher: Launcher,
        cwd: Path | None = None,
        *,
        timeout: float = 300.0,
    ) -> None:
        self.commands = list(commands)
        self.launcher = launcher
        self.cwd = cwd
        self.timeout = timeout

    def fix(self, ctx: FixContext) -> FixResult:
        """Run the commands in `ctx.repo`; `files_changed` lists files whose content changed."""
        before = git.tree_fingerprint(ctx.repo)
        notes = [self._run(ctx, n, command) for n, command in enumerate(self.commands, 1)]
        prefix = ctx.state_dir.rstrip("/") + "/"
        changed = [p for p in git.changed_since(ctx.repo, before) if not p.startswith(prefix)]
        ran = ", ".join(f"`{command}`" for command in self.commands)
        summary = f"ran {ran}\n" + "\n".join(notes)
        return FixResult(fixer=self.name, files_changed=changed, summary=summary)

    def _run(self, ctx: FixContext, number: int, command: str) -> str:
        folder = ctx.repo / ctx.state_dir / "attempts" / f"{ctx.attempt:03d}"
        log = folder / f"fix-command-{number}.log"
        result, back = self.launcher.run_fix(command, self.cwd or ctx.repo, log, self.timeout)
        where = log.relative_to(ctx.repo).as_posix()
        refused = "".join(
            f"\n  not brought back: {rel} ({why})" for rel, why in (back.refused if back else [])
        )
        if result.timed_out:
            return f"`{command}` timed out after {self.timeout:g} s (log: {where}){refused}"
        ran = f"`{command}` exit {result.exit_code} ({result.duration_s:.1f} s, log: {where})"
        return ran + refused


class ChainFixer:
    """Try fixers in order; the first that changes a file makes the attempt.

    Deterministic fix commands go first so the model is only asked when they change nothing.
    A fixer that reports an `error` ends the chain with that error.
    """

    def __init__(self, fixers: list[Fixer]) -> None:
        self.fixers = fixers
        self.name = "+".join(f.name for f in fixers) or "none"

    def fix(self, ctx: FixContext) -> FixResult:
        """Return the first result that changed files or carries an error, else the last one."""
        last = FixResult(fixer="none", summary="no fixer configured")
        tokens, cost, known = 0, 0.0, True
        for fixer in self.fixers:
            last = fixer.fix(ctx)
            tokens += last.tokens
            cost += last.cost_usd or 0.0
            known = known and last.cost_known
            if last.changed or last.error:
                break
        return last.model_copy(
            update={"tokens": tokens, "cost_usd": cost if known else None, "cost_known": known}
        )
