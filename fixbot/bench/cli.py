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


def shard(text: str) -> tuple[int, int]:
    """`I/N` -> (I, N) for `--shard`; raises `argparse.ArgumentTypeError` unless 1 <= I <= N."""
    index, _, count = text.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not I/N (e.g. 2/4)") from None
    if not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"{text!r}: I must be from 1 to N")
    return i, n


def add_arguments(bench: argparse.ArgumentParser) -> None:
    """`--verify`, `--list`, the case filters and `--cache` (the corpus side of the bench)."""
    bench.add_argument(
        "--list",
        action="store_true",
        help="list the cases (id, family, ecosystem, part: dev or held-out) and run nothing",
    )
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
        "--part",
        choices=["dev", "held-out"],
        help="only the cases of this part of the corpus (bench/corpus/README.md: the split rule)",
    )
    bench.add_argument(
        "--shard",
        type=shard,
        metavar="I/N",
        help="only the I-th of N shards (the cases in corpus order, every N-th from the I-th): "
        "run N machines, then --merge their --json outputs",
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
    from fixbot.bench.cache import cache_root

    if args.merge:
        return command.merge(args)
    if not (args.verify or args.list) and not command.wanted(args):
        wanted = "--list, --verify, --model M, --oracle, --localize or --merge"
        print(f"fixbot bench: nothing to do; pass {wanted}", file=sys.stderr)
        return 2
    cases = _cases(args)
    if cases is None:
        return 2
    if args.list:
        return listing(cases)
    if not args.verify:
        return command.run(args, cases, args.cache or cache_root())
    return verify(cases, args.cache or cache_root())


def _cases(args: argparse.Namespace) -> list[Case] | None:
    """The cases `args` choose (`--corpus`, `--case`, `--family`, `--part`, `--shard`); None,
    after saying why on stderr, when the corpus is invalid or no case is left."""
    from fixbot.bench.corpus import CORPUS, CorpusError, load_corpus

    try:
        cases = load_corpus(args.corpus or CORPUS, args.case, args.family)
    except CorpusError as error:
        print(f"fixbot bench: {error}", file=sys.stderr)
        return None
    cases = chosen(cases, args.part, args.shard)
    if not cases:
        print("fixbot bench: no case left after --part and --shard", file=sys.stderr)
        return None
    return cases


def chosen(cases: list[Case], part: str | None, shard: tuple[int, int] | None) -> list[Case]:
    """`cases` of the part `part` (None: both), then of the shard `(I, N)` (None: all): the
    cases at positions I-1, I-1+N, ... of the corpus order, so N shards split every case once."""
    from fixbot.bench.corpus import part_of

    found = [c for c in cases if part is None or part_of(c.id).value == part]
    if shard is None:
        return found
    index, count = shard
    return found[index - 1 :: count]


def listing(cases: list[Case]) -> int:
    """`--list`: one line per case (id, family, ecosystem, part), then the count; 0."""
    from fixbot.bench.corpus import part_of

    width = max(len(c.id) for c in cases)
    for case in cases:
        part = part_of(case.id).value
        print(f"{case.id:<{width}}  {case.family.value:<12}  {case.ecosystem.value:<6}  {part}")
    held = sum(1 for c in cases if part_of(c.id).value == "held-out")
    print(f"{len(cases)} cases ({len(cases) - held} dev, {held} held-out)")
    return 0


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
