"""The deterministic fix-command fixer, and the chain that runs fixers in order.

Both are `fixbot.core.roles.Fixer`s.

A fixer changes files in the working tree to address one failure; the engine then verifies by
re-running the check. Fixers never commit and never run the check themselves.
"""

from __future__ import annotations

from pathlib import Path

from fixbot.core.models import Attempt, FixContext, FixResult
from fixbot.core.roles import Fixer
from fixbot.logs.condense import ANSI_RE
from fixbot.process import git
from fixbot.process.launcher import Launcher

FIRST_LINES = 3  # a crash's first lines: ESLint 9 names the missing config file in its third
LINE_CHARS = 160
HEAD_BYTES = 8192


class FixCommandFixer:
    """Run each `--fix-command` in order (e.g. `ruff check --fix`) and keep what they changed.

    Each command runs through `launcher` (the one way fixbot runs a project command: own process
    group killed on timeout, scrubbed environment, unprivileged user, bounded redacted log) in
    `cwd` (default: the repository), for at most `timeout` seconds; its log is
    `<state_dir>/attempts/NNN/fix-command-N.log`. A command's exit code is recorded in the
    summary but does not stop the others: linters exit non-zero when problems remain after
    fixing. A command that exits non-zero or times out is also a `FixResult.problems` line
    (its exit code and first output lines), shown in the progress and the report.
    `files_changed` are the files whose content differs after the commands (measured before
    and after them in fixbot's clone, where the launcher brought back the regular files each
    command changed in the workspace), never anything under the state folder. What the
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
        """Run the commands in `ctx.repo`; `files_changed` lists files whose content changed,
        `problems` the commands that exited non-zero or timed out (exit code, first lines).

        Deterministic commands on the same failure do the same again: when they already ran on
        the failure `ctx` is about (an earlier attempt of `ctx.history` started from the same
        signature) and did not help there (they changed nothing, or what they changed was
        undone), they are not run again, and that attempt's problems are carried over (a crash
        stays the reason, not "changed nothing"). Commands that made progress (fewer failures,
        kept) run again: some fix one step a run."""
        earlier = ran_on_this_failure(ctx)
        if earlier is not None and not self._helped(earlier):
            return self._not_again(earlier)
        before = git.tree_fingerprint(ctx.repo)
        ran = [self._run(ctx, n, command) for n, command in enumerate(self.commands, 1)]
        prefix = ctx.state_dir.rstrip("/") + "/"
        changed = [p for p in git.changed_since(ctx.repo, before) if not p.startswith(prefix)]
        names = ", ".join(f"`{command}`" for command in self.commands)
        summary = f"ran {names}\n" + "\n".join(note for note, _ in ran)
        problems = [problem for _, problem in ran if problem]
        return FixResult(
            fixer=self.name,
            files_changed=changed,
            summary=summary,
            problems=problems,
            commands=list(self.commands),
        )

    def _helped(self, earlier: Attempt) -> bool:
        """True when `earlier` ran these commands and kept what they changed."""
        return earlier.fixer == self.name and not earlier.undone and bool(earlier.files_changed)

    def _not_again(self, earlier: Attempt) -> FixResult:
        """The result of not running the commands again: `earlier`'s problems carried over."""
        problems = [f"{line} (attempt {earlier.number})" for line in earlier.fix_problems]
        summary = (
            f"not run again: the fix commands ran on this failure in attempt "
            f"{earlier.number}" + (" and failed" if problems else "")
        )
        return FixResult(fixer=self.name, summary=summary, problems=problems)

    def _run(self, ctx: FixContext, number: int, command: str) -> tuple[str, str | None]:
        """(the summary's line on `command`, the problem line when it failed, else None)."""
        folder = ctx.repo / ctx.state_dir / "attempts" / f"{ctx.attempt:03d}"
        log = folder / f"fix-command-{number}.log"
        result, back = self.launcher.run_fix(command, self.cwd or ctx.repo, log, self.timeout)
        where = log.relative_to(ctx.repo).as_posix()
        refused = "".join(
            f"\n  not brought back: {rel} ({why})" for rel, why in (back.refused if back else [])
        )
        if result.timed_out:
            note = f"`{command}` timed out after {self.timeout:g} s (log: {where})"
            return note + refused, note
        note = f"`{command}` exit {result.exit_code} ({result.duration_s:.1f} s, log: {where})"
        if result.exit_code == 0:
            return note + refused, None
        said = " / ".join(first_lines(log)) or "(no output)"
        return note + refused, f"`{command}` exit {result.exit_code}: {said} (log: {where})"


def started_from(history: list[Attempt], index: int) -> Attempt | None:
    """The attempt whose tree `history[index]` started from: the one before it, or the one its
    divergence restored (`restored_to`); None for the first."""
    if index == 0:
        return None
    before = history[index - 1]
    if before.restored_to is not None:
        return next((a for a in history if a.number == before.restored_to), before)
    return before


def ran_on_this_failure(ctx: FixContext) -> Attempt | None:
    """The latest attempt of `ctx.history` whose fix commands ran on the failure `ctx` is
    about (the same signature), None when there is none (or no failure to compare)."""
    if ctx.failure is None:
        return None
    for index in reversed(range(len(ctx.history))):
        attempt = ctx.history[index]
        origin = started_from(ctx.history, index)
        same = origin is not None and origin.signature == ctx.failure.signature
        if attempt.fix_commands and same and origin is not None and not origin.passed:
            return attempt
    return None


def first_lines(log: Path, count: int = FIRST_LINES, width: int = LINE_CHARS) -> list[str]:
    """The first `count` non-blank lines of a command's log (its head, ANSI codes removed),
    each cut at `width` characters: where a crashing tool says what went wrong (ESLint 9's
    `Oops! Something went wrong! :(` ... `ESLint couldn't find an eslint.config.(js|mjs|cjs)
    file.`). [] when the log cannot be read."""
    try:
        with log.open("rb") as stream:
            head = stream.read(HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return []
    lines = [line.strip() for line in ANSI_RE.sub("", head).splitlines() if line.strip()]
    return [line if len(line) <= width else line[: width - 3] + "..." for line in lines[:count]]


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
        tokens, cost, known, problems, commands = 0, 0.0, True, [], []
        for fixer in self.fixers:
            last = fixer.fix(ctx)
            tokens += last.tokens
            cost += last.cost_usd or 0.0
            known = known and last.cost_known
            problems += last.problems  # a crashed fix command stays visible after the model
            commands += last.commands
            if last.changed or last.error:
                break
        update = {"tokens": tokens, "cost_usd": cost if known else None, "cost_known": known}
        return last.model_copy(update=update | {"problems": problems, "commands": commands})
