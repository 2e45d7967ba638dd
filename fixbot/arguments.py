"""The command line's options: one `fixbot run` option per setting with a CLI surface, derived
from `fixbot.core.settings`, and each subcommand's own (`fixbot stats`, `fixbot clean`,
`fixbot bench`). Only argparse at import, so that `fixbot --help` answers fast; `fixbot.cli`
parses with it and dispatches."""

from __future__ import annotations

import argparse
from typing import Any

from fixbot import __version__


def _help(item: Any) -> str:
    """Help text with the default and an example, as `--help` shows it."""
    from fixbot.core.surfaces import shown_default

    parts: list[str] = [str(item.help).rstrip(".")]
    default = shown_default(item.default).replace("\n", ", ")
    extra = [f"default: {default}"] if default and not item.is_bool else []
    if item.surface.example:
        extra.append(f"e.g. {item.surface.example!r}")
    if item.is_list:
        extra.append("repeatable")
    return parts[0] + (f" ({'; '.join(extra)})" if extra else "")


def add_setting_options(run: argparse.ArgumentParser) -> None:
    """One option per setting with a CLI surface, derived from its `Settings` declaration."""
    from fixbot.core.surfaces import specs

    group = run.add_argument_group("settings (also FIXBOT_<NAME> or [tool.fixbot] keys)")
    for item in specs():
        if not item.surface.cli:
            continue
        extra: dict[str, Any] = {"metavar": item.surface.metavar}
        if item.is_bool:
            extra = {"action": argparse.BooleanOptionalAction}
        elif item.is_list:
            extra["action"] = "append"
        group.add_argument(*item.flags, dest=item.field, default=None, help=_help(item), **extra)
        if item.surface.off_flag:
            group.add_argument(
                f"--{item.surface.off_flag}",
                dest=item.field,
                action="store_const",
                const=False,
                help=f"the opposite of --{item.name}",
            )


def add_pull_request_options(run: argparse.ArgumentParser) -> None:
    """`--pr`, `--repo` and `--push`: address a pull request's review threads locally."""
    group = run.add_argument_group("pull request (needs GITHUB_TOKEN or GH_TOKEN)")
    group.add_argument(
        "--pr",
        type=int,
        metavar="N",
        help="also address the review threads of pull request N (check out its branch first)",
    )
    group.add_argument(
        "--repo", metavar="OWNER/NAME", help="the pull request's repository (default: origin)"
    )
    group.add_argument(
        "--push",
        action="store_true",
        help="with --pr: push the verified commits to the pull request's branch, reply in and "
        "resolve the addressed threads",
    )


def build_parser(run_options: bool = True, stats_options: bool = True) -> argparse.ArgumentParser:
    """The argument parser for every subcommand.

    `run_options` False leaves out the settings of `fixbot run` (deriving them imports pydantic),
    so `fixbot --help` and `fixbot action` start fast; `stats_options` False leaves out those
    of `fixbot stats` (they import the GitHub client).
    """
    parser = argparse.ArgumentParser(
        prog="fixbot",
        description="Turn a red check green: run the check, fix, verify, and stop honestly.",
    )
    parser.add_argument("--version", action="version", version=f"fixbot {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="run the check and fix it in a git repository on this machine",
        description="Run the check; when it fails, fix, verify and repeat until green or the "
        "circuit breaker opens. Every setting can also be set as FIXBOT_<NAME> or in "
        "[tool.fixbot] of pyproject.toml / .fixbot.toml (flags beat env beats file).",
        epilog="example: fixbot run --model anthropic/claude-sonnet-4-5 (the check inferred from "
        'the CI workflow; --explain shows it), or fixbot run --check "pytest -q" ...',
    )
    run.add_argument(
        "-C", dest="directory", default=".", metavar="DIR", help="the repository (default: .)"
    )
    run.add_argument("--json", action="store_true", help="print the outcome as one JSON object")
    run.add_argument(
        "--explain",
        action="store_true",
        help="print the plan (the set-up, check and fix commands, each with where it came from: "
        "given, or inferred from the CI workflow, the task files or the ecosystem) and exit: 0 "
        "with a check, 2 without; nothing is run",
    )
    add_pull_request_options(run)
    source = run.add_mutually_exclusive_group()  # the first failing run, from elsewhere
    source.add_argument(
        "--from-log",
        metavar="FILE",
        help="a failure log from elsewhere (- for standard input) is the first failing run: no "
        "initial check; every fix is still verified by the check",
    )
    source.add_argument(
        "--from-run",
        metavar="RUN",
        help="a failed GitHub Actions run (its id or URL; token in GITHUB_TOKEN or GH_TOKEN): "
        "its failed jobs' logs are the first failing run",
    )
    if run_options:
        add_setting_options(run)
    commands.add_parser(
        "action",
        help="run as the GitHub Action (reads INPUT_* and GITHUB_* variables)",
        description="The entry point of the Docker container action; see action.yml.",
    )
    stats = commands.add_parser(
        "stats",
        help="what fixbot did for a repository: runs, fix rate, time to green, cost",
        description="Count the runs `fixbot run` recorded for this clone (its event log, "
        "kept across runs, and fixbot's commit trailers) and, with a token in GITHUB_TOKEN or "
        "GH_TOKEN, fixbot's records on GitHub (its status comments' history, its pull "
        "requests and issues); print runs, fixed / escalated / refused / flaky, median time "
        "to green, attempts, tokens and USD per fix and the most frequent failure classes.",
        epilog="examples: fixbot stats; fixbot stats --repo octo/app --since 30d --mermaid",
    )
    if stats_options:
        from fixbot.github.stats.command import add_arguments

        add_arguments(stats)
    clean = commands.add_parser(
        "clean",
        help="list and remove fixbot's private folders (its clones, states and logs)",
        description="Each run keeps a private folder per workspace (its clone, state and logs; "
        "as root under /var/lib/fixbot, else under $XDG_STATE_HOME/fixbot) so the next run "
        "can resume. Without options, remove those whose workspace is gone or that no run "
        "used for 30 days (each run applies the same rule); a folder a run holds is never "
        "removed.",
        epilog="examples: fixbot clean --list; fixbot clean --older-than 7d; fixbot clean --all",
    )
    clean.add_argument("--list", action="store_true", help="list them, remove nothing")
    clean.add_argument(
        "--older-than",
        default="30d",
        metavar="AGE",
        help="remove those no run used for AGE: 30d, 12h, 4w (default 30d)",
    )
    clean.add_argument("--all", action="store_true", help="remove every one no run holds now")
    from fixbot.bench.cli import add_arguments as add_bench_arguments

    bench = commands.add_parser(
        "bench",
        help="how often fixbot fixes real CI failures: the corpus of bench/corpus/",
        description=(
            "Rebuild real CI failures from PyPI, npm and Debian's archive and check them "
            "(--verify)."
        ),
        epilog="examples: fixbot bench --list; "
        "fixbot bench --verify --case attrs-21-1-0-evolve-nested",
    )
    add_bench_arguments(bench)
    return parser


def flags_from(args: argparse.Namespace) -> dict[str, Any]:
    """The settings fields given on the command line (None where not given)."""
    from fixbot.core.surfaces import specs

    return {item.field: getattr(args, item.field, None) for item in specs() if item.surface.cli}
