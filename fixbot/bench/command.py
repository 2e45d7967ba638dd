"""`fixbot bench --model M | --oracle [--baseline] [--jobs N] [budget] [--json|--markdown|--png]`:
prepare the cases, run them (`fixbot.bench.run`) under a progress bar, print the report
(`fixbot.bench.report`); `--merge` prints the report of several shards' `--json` outputs.

`fixbot.bench.cli` holds the subcommand and calls `add_arguments` and `run` here.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.progress import Progress as Bars

    from fixbot.bench.corpus import Case
    from fixbot.bench.run import CaseResult, Job, Runner


def add_arguments(bench: argparse.ArgumentParser) -> None:
    """The options of a bench run: who fixes, the budget, the output."""
    who = bench.add_argument_group("running fixbot on the cases")
    who.add_argument(
        "--model",
        metavar="MODEL",
        help="litellm model string fixbot (and the baseline) use; 'none': the deterministic "
        "tier alone (each ecosystem's recommended fix commands, no model)",
    )
    who.add_argument("--api-base", metavar="URL", help="base URL of an OpenAI-compatible server")
    who.add_argument(
        "--oracle",
        action="store_true",
        help="a scripted model answering each case's reference fix: every case must end fixed",
    )
    who.add_argument(
        "--localize",
        action="store_true",
        help="measure localization alone: fixbot's first request (the check, its evidence, the "
        "coverage spectrum) to a scripted model that changes nothing; no grading, no model",
    )
    who.add_argument(
        "--requests",
        type=Path,
        metavar="DIR",
        help="write each case's first request to the model into DIR/<case>.txt",
    )
    who.add_argument(
        "--baseline",
        action="store_true",
        help="also run the one-request baseline (the failing log and the files it names, one "
        "request, its edit blocks applied) with the same model",
    )
    who.add_argument("--jobs", type=int, metavar="N", help="cases at a time (default: cores / 2)")
    who.add_argument(
        "--edit-protocol", default="auto", metavar="tools|text|auto", help="fixbot's protocol"
    )
    budget = bench.add_argument_group("the budget of each case")
    budget.add_argument("--attempts", type=int, default=3, metavar="N", help="fix attempts")
    budget.add_argument("--max-tokens", type=int, default=200_000, metavar="N", help="tokens")
    budget.add_argument("--max-usd", type=float, default=0.5, metavar="USD", help="model cost")
    budget.add_argument("--max-seconds", type=float, default=600.0, metavar="S", help="wall time")
    out = bench.add_argument_group("output (default: a table in the terminal)")
    out.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="run nothing: the report of these `--json` outputs together (the shards of a run)",
    )
    out.add_argument("--json", action="store_true", help="the cases and totals as JSON")
    out.add_argument("--markdown", action="store_true", help="Markdown tables, for a README")
    out.add_argument("--png", metavar="FILE", help="also draw the grades per runner into a PNG")


def wanted(args: argparse.Namespace) -> bool:
    """Whether `args` ask for a bench run (not only `--verify`)."""
    return bool(args.model or args.oracle or args.localize)


def jobs_of(
    cases: list[Case],
    cache: Path,
    out: TextIO | None,
    into: Path,
    each: Callable[[Case], None] | None = None,
) -> list[Job]:
    """Prepare every case into its own folder under `into` (not the cache's shared work folder,
    which another bench or `--verify` may be using; downloads and environments stay cached),
    one line per case to `out` (when given) and a call of `each`."""
    from fixbot.bench.prepare import prepare
    from fixbot.bench.run import Job

    jobs = []
    for case in cases:
        jobs.append(Job.of(prepare(case, cache, into / case.id)))
        if out is not None:
            print(f"prepared {case.id}", file=out, flush=True)
        if each is not None:
            each(case)
    return jobs


def grades_so_far(counts: Counter[str]) -> str:
    """`fixed 3, escalated 1`: the grades counted so far, most frequent first."""
    return ", ".join(f"{grade} {n}" for grade, n in counts.most_common())


class Progress:
    """The bench's progress on stderr: in a terminal, rich bars (preparing, then running) with
    the count, the grades so far and the elapsed time; elsewhere (a CI log) one line per case
    with the same figures."""

    def __init__(self, out: TextIO) -> None:
        from rich.console import Console

        self.console = Console(file=out)
        self.counts: Counter[str] = Counter()
        self.start = time.monotonic()
        self.done = 0
        self.total = 0
        self.bar: Bars | None = None

    def __enter__(self) -> Progress:
        if self.console.is_terminal:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
            )
            from rich.progress import (
                Progress as Bars,
            )

            bars = Bars(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.fields[grades]}"),
                console=self.console,
            )
            bars.__enter__()
            self.bar = bars
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)

    def stage(self, name: str, total: int) -> Callable[[str, str], None]:
        """Start the stage `name` of `total` steps; returns what to call after each step with
        the case id and, when it ran, its grade ('' for a preparation)."""
        self.done, self.total = 0, total
        task = self.bar.add_task(name, total=total, grades="") if self.bar else None

        def step(case: str, grade: str) -> None:
            self.done += 1
            if grade:
                self.counts[grade] += 1
            so_far = grades_so_far(self.counts)
            if self.bar is not None:
                self.bar.update(task, advance=1, grades=so_far)  # type: ignore[arg-type]
                return
            elapsed = time.monotonic() - self.start
            what = f"{case} {grade}".strip()
            figures = f"{so_far}; {elapsed:.0f} s" if so_far else f"{elapsed:.0f} s"
            print(
                f"{name} {self.done}/{self.total} {what} ({figures})",
                file=self.console.file,
                flush=True,
            )

        return step


def run(args: argparse.Namespace, cases: list[Case], cache: Path) -> int:
    """Run the bench as `args` ask on `cases`; 0 when it ran (the oracle: and every case ended
    fixed with no false alarm), 1 otherwise, 2 for bad options."""
    from fixbot.bench.run import Budget, Options, run_all

    runners = _runners(args)
    if runners is None:
        return 2
    budget = Budget(
        attempts=args.attempts, tokens=args.max_tokens, usd=args.max_usd, seconds=args.max_seconds
    )
    model = None if args.model in (None, "none") else args.model
    options = Options(
        model=model,
        api_base=args.api_base,
        edit_protocol=args.edit_protocol,
        budget=budget,
        requests_dir=args.requests,
    )

    with tempfile.TemporaryDirectory(prefix="fixbot-bench-") as tmp:
        with Progress(sys.stderr) as bar:
            prepared = bar.stage("preparing", len(cases))
            jobs = jobs_of(cases, cache, None, Path(tmp), lambda case: prepared(case.id, ""))
            ran = bar.stage("running", len(jobs) * len(runners))
            results = run_all(jobs, runners, options, args.jobs, lambda r: ran(r.id, r.grade.value))
        # the report before the prepared copies are removed (a minute of disk on a busy machine)
        return output(args, results, [invocation()])


def invocation() -> str:
    """This process's command line as a `fixbot` command (for the figures' provenance)."""
    import shlex

    return shlex.join(["fixbot", *sys.argv[1:]])


def output(args: argparse.Namespace, results: Sequence[CaseResult], commands: list[str]) -> int:
    """Print the report of `results` (produced by `commands`) as `args` ask; 0, or 1 when the
    oracle ran and a case did not end fixed or raised a false alarm."""
    from fixbot.bench import report
    from fixbot.bench.run import Grade, Runner

    if args.json:
        print(report.as_json(results, commands))
    elif args.markdown:
        print(report.markdown(results, commands), end="")
    else:
        from rich.console import Console

        Console().print(report.table(results))
    if args.png:
        report.png(results, Path(args.png))
    oracle = [r for r in results if r.runner is Runner.ORACLE]
    bad = [r for r in oracle if r.grade is not Grade.FIXED or r.false_alarms]
    return 1 if bad else 0


def merge(args: argparse.Namespace) -> int:
    """`--merge FILE...`: the report of the cases of several `--json` outputs; 2 when a file
    is unreadable or two name the same case and runner."""
    from pydantic import ValidationError

    from fixbot.bench.run import CaseResult

    results: list[CaseResult] = []
    commands: list[str] = []
    seen: dict[tuple[str, str], Path] = {}
    for path in args.merge:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            found = [CaseResult.model_validate(c) for c in data["cases"]]
            commands += [str(c) for c in data.get("commands", [])]
        except (OSError, ValueError, KeyError, TypeError, AttributeError, ValidationError) as exc:
            print(
                f"fixbot bench: {path}: not a `fixbot bench --json` output: {exc}", file=sys.stderr
            )
            return 2
        for r in found:
            key = (r.id, r.runner.value)
            if key in seen:
                print(
                    f"fixbot bench: {r.id} ({r.runner}) is in {seen[key]} and {path}",
                    file=sys.stderr,
                )
                return 2
            seen[key] = path
        results.extend(found)
    return output(args, results, [*commands, invocation()])


def _runners(args: argparse.Namespace) -> list[Runner] | None:
    from fixbot.bench.run import Runner

    if args.oracle:
        return [Runner.ORACLE]
    if args.localize:
        return [Runner.LOCALIZE]
    if args.model == "none":
        return [Runner.DETERMINISTIC]
    if args.baseline and not args.model:
        print("fixbot bench: --baseline needs --model", file=sys.stderr)
        return None
    extra = [Runner.BASELINE] if args.baseline else []
    return [Runner.FIXBOT, *extra]
