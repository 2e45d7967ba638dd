"""The options of `fixbot bench` and what runs them (`fixbot.cli` registers the subcommand).

Only argparse is imported here at start-up; the bench's modules are imported when it runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fixbot.bench.corpus import Case


def add_arguments(bench: argparse.ArgumentParser) -> None:
    """`--verify`, `--case` and `--cache` (the corpus side of the bench)."""
    bench.add_argument(
        "--verify",
        action="store_true",
        help="check the corpus itself: each check fails as recorded, the reference fix makes it "
        "pass, the hidden tests pass on the fixed tree",
    )
    bench.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="ID",
        help="only this case (repeatable; default: every case of bench/corpus/)",
    )
    bench.add_argument(
        "--family",
        action="append",
        default=[],
        metavar="NAME",
        help="only the cases of this family (repeatable: regression, world-moved, tool-upgrade, "
        "test-change)",
    )
    bench.add_argument(
        "--corpus",
        type=Path,
        default=None,
        metavar="DIR",
        help="the corpus folder (default: bench/corpus/ of fixbot's source)",
    )
    bench.add_argument(
        "--cache",
        type=Path,
        default=None,
        metavar="DIR",
        help="downloads, environments and prepared repositories (default: FIXBOT_BENCH_CACHE "
        "or ~/.cache/fixbot/bench)",
    )
    from fixbot.bench.command import add_arguments as add_run_arguments

    add_run_arguments(bench)  # the run side: --model, --oracle, budgets, output


def run(args: argparse.Namespace) -> int:
    """Run `fixbot bench` as `args` ask; return the exit code (0 all held, 1 some did not,
    2 nothing to do or an invalid corpus)."""
    from fixbot.bench import command
    from fixbot.bench.corpus import CORPUS, CorpusError, load_corpus
    from fixbot.bench.prepare import cache_root

    if not args.verify and not command.wanted(args):
        wanted = "--verify, --model M, --oracle or --localize"
        print(f"fixbot bench: nothing to do; pass {wanted}", file=sys.stderr)
        return 2
    try:
        cases = load_corpus(args.corpus or CORPUS, args.case, args.family)
    except CorpusError as error:
        print(f"fixbot bench: {error}", file=sys.stderr)
        return 2
    if not args.verify:
        return command.run(args, cases, args.cache or cache_root())
    return verify(cases, args.cache or cache_root())


def verify(cases: list[Case], cache: Path) -> int:
    """`--verify`: one line per case as it ends, then the problems; 0 when every case held."""
    from fixbot.bench.verify import Verdict, verify_all

    def report(verdict: Verdict) -> None:
        mark = "ok  " if verdict.ok else "FAIL"
        print(f"{mark} {verdict.case.id} ({verdict.seconds:.1f} s)", flush=True)

    verdicts = verify_all(cases, cache, report)
    failed = [v for v in verdicts if not v.ok]
    for verdict in failed:
        print(f"\n{verdict.case.path_hint}:", file=sys.stderr)
        for problem in verdict.problems:
            print(f"  {problem}", file=sys.stderr)
    print(f"{len(verdicts) - len(failed)} of {len(verdicts)} cases hold")
    return 1 if failed else 0
