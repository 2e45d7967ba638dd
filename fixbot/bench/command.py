"""`fixbot bench --model M | --oracle [--baseline] [--jobs N] [budget] [--json|--markdown|--png]`:
prepare the cases, run them (`fixbot.bench.run`), print the report (`fixbot.bench.report`).

`fixbot.bench.cli` holds the subcommand and calls `add_arguments` and `run` here.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from fixbot.bench.corpus import Case
    from fixbot.bench.run import Job, Runner


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
        help="also run the one-request baseline (and Aider's --auto-test loop when aider is on "
        "PATH) with the same model",
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
    out.add_argument("--json", action="store_true", help="the cases and totals as JSON")
    out.add_argument("--markdown", action="store_true", help="Markdown tables, for a README")
    out.add_argument("--png", metavar="FILE", help="also draw the grades per runner into a PNG")


def wanted(args: argparse.Namespace) -> bool:
    """Whether `args` ask for a bench run (not only `--verify`)."""
    return bool(args.model or args.oracle or args.localize)


def jobs_of(cases: list[Case], cache: Path, out: TextIO, into: Path) -> list[Job]:
    """Prepare every case into its own folder under `into` (not the cache's shared work folder,
    which another bench or `--verify` may be using; downloads and environments stay cached),
    one line per case."""
    from fixbot.bench.prepare import prepare
    from fixbot.bench.run import Job

    jobs = []
    for case in cases:
        jobs.append(Job.of(prepare(case, cache, into / case.id)))
        print(f"prepared {case.id}", file=out, flush=True)
    return jobs


def run(args: argparse.Namespace, cases: list[Case], cache: Path) -> int:
    """Run the bench as `args` ask on `cases`; 0 when it ran (the oracle: and every case ended
    fixed with no false alarm), 1 otherwise, 2 for bad options."""
    from fixbot.bench import report
    from fixbot.bench.run import Budget, Grade, Options, Runner, run_all

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

    def done(result: object) -> None:
        print(f"done {getattr(result, 'id', '')}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="fixbot-bench-") as tmp:
        jobs = jobs_of(cases, cache, sys.stderr, Path(tmp))
        results = run_all(jobs, runners, options, args.jobs, done)
    if args.json:
        print(report.as_json(results))
    elif args.markdown:
        print(report.markdown(results), end="")
    else:
        from rich.console import Console

        Console().print(report.table(results))
    if args.png:
        report.png(results, Path(args.png))
    if Runner.ORACLE in runners:
        oracle = [r for r in results if r.runner is Runner.ORACLE]
        bad = [r for r in oracle if r.grade is not Grade.FIXED or r.false_alarms]
        return 1 if bad else 0
    return 0


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
    extra = [Runner.BASELINE, Runner.AIDER] if args.baseline else []
    return [Runner.FIXBOT, *extra]
