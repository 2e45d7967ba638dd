"""The command line: `fixbot run` (the loop on this machine) and `fixbot action` (in a workflow).

Only argparse (and, to derive the `run` options from `fixbot.core.settings`, pydantic) is imported
at start-up so `fixbot --help` answers fast; litellm and PyGithub are imported when a command runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fixbot import __version__
from fixbot.startup import START_DIR, harden_process, secrets_first

if TYPE_CHECKING:
    from fixbot.core.models import Outcome
    from fixbot.process.cleanup import Private


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
        description="Rebuild real CI failures from PyPI and npm and check them (--verify).",
        epilog="examples: fixbot bench --list; "
        "fixbot bench --verify --case attrs-21-1-0-evolve-nested",
    )
    add_bench_arguments(bench)
    return parser


def flags_from(args: argparse.Namespace) -> dict[str, Any]:
    """The settings fields given on the command line (None where not given)."""
    from fixbot.core.surfaces import specs

    return {item.field: getattr(args, item.field, None) for item in specs() if item.surface.cli}


def command_run(args: argparse.Namespace) -> int:
    """`fixbot run`: load settings, run the loop, print the outcome; return the exit code.

    Ordinary situations (bad configuration, Ctrl-C, SIGTERM) end with one line each and their
    exit code (2, 130, 143), never a traceback.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from fixbot.core import environment
    from fixbot.core.config import load_settings
    from fixbot.core.errors import Cancelled, ConfigError, Interrupted
    from fixbot.core.models import Outcome, OutcomeKind
    from fixbot.run import engine
    from fixbot.run.request import RunRequest
    from fixbot.ui.progress import make_progress

    directory = (START_DIR[0] / args.directory).resolve()
    given = environment.given(os.environ)  # the commands' (without secrets), the settings'
    try:
        if not directory.is_dir():
            raise ConfigError([f"{directory} does not exist: pass -C with the repository's folder"])
        settings = load_settings(directory, flags_from(args), given)
        if getattr(args, "explain", False):
            return explain(settings, directory)
        settings = zero_config(settings, directory)
        if getattr(args, "pr", None) is not None:
            outcome = _run_pull_request(args, settings, directory)
        else:
            if getattr(args, "push", False):
                raise ConfigError(["--push needs --pr N (the pull request to push to)"])
            outcome, _ = engine.run(
                settings,
                directory,
                env=given,
                progress=make_progress(given),
                request=RunRequest(
                    hint=settings.hint, first_failure=first_failure(args, directory)
                ),
            )
    except ConfigError as exc:
        outcome = Outcome(outcome=OutcomeKind.ERROR, reason="; ".join(exc.problems))
        print("fixbot: cannot run; fix these first:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  - {problem}", file=sys.stderr)
        if not args.json:
            return outcome.exit_code  # the problems above are the whole message: print them once
    except (Cancelled, Interrupted) as exc:
        print(f"fixbot: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("fixbot: interrupted before the run started; nothing was changed", file=sys.stderr)
        return Interrupted.exit_code
    print_outcome(outcome, as_json=args.json)
    return outcome.exit_code


def explain(settings: Any, directory: Path) -> int:
    """`fixbot run --explain`: the plan on stdout, what is missing here on stderr; 0 with a
    check, 2 without."""
    from fixbot.infer.inference import missing_tools
    from fixbot.run.zeroconf import plan_for

    plan = plan_for(settings, directory)
    for line in plan.lines():
        print(line)
    for problem in missing_tools(plan):
        print(f"fixbot: missing here: {problem}", file=sys.stderr)
    return 0 if plan.check else 2


def zero_config(settings: Any, directory: Path) -> Any:
    """`settings` with the check, set-up and fix commands inferred when no check was given;
    the plan goes to stderr, each command with where it came from, before anything runs.
    Raises `ConfigError` when no check can be inferred or a tool it needs is missing."""
    from fixbot.run.zeroconf import resolve

    settings, plan = resolve(settings, directory)
    for line in plan.lines() if plan else []:
        print(f"fixbot: {line}", file=sys.stderr)
    return settings


def first_failure(args: argparse.Namespace, directory: Path) -> Any:
    """The `FirstFailure` given by `--from-log` / `--from-run`, or None; notes go to stderr.

    A log that shows a transient failure (network, rate limit, ...) is not a code problem: the
    check is run instead. Raises `ConfigError` for an unreadable log or run.
    """
    if not (args.from_log or args.from_run):
        return None
    from fixbot.core.failure import ErrorClass
    from fixbot.logs.joblog import classify_first, read_log

    notes: list[str] = []
    if args.from_log:
        given = args.from_log
        first = read_log(given if given == "-" else str(START_DIR[0] / given))
    else:
        from fixbot.github.fromrun import fetch

        first, notes = fetch(args.from_run, os.environ, directory)
    found = classify_first(first)
    if found.error_class is ErrorClass.TRANSIENT:
        notes.append(
            f"the log of {first.source} shows a transient failure ({found.category}), not a "
            "code problem: the check is run instead"
        )
    for note in notes:
        print(f"fixbot: note: {note}", file=sys.stderr)
    return None if found.error_class is ErrorClass.TRANSIENT else first


def _run_pull_request(args: argparse.Namespace, settings: Any, directory: Path) -> Outcome:
    """`fixbot run --pr N`: GitHub errors become an `error` outcome with their message."""
    from fixbot.core import environment
    from fixbot.core.errors import GitHubError
    from fixbot.core.models import Outcome, OutcomeKind
    from fixbot.github.local import run_pull_request
    from fixbot.ui.progress import make_progress

    try:
        return run_pull_request(
            settings,
            directory,
            args.pr,
            env=environment.given(os.environ),
            repo=args.repo,
            push=args.push,
            progress=make_progress(os.environ),
            out=sys.stderr,
        )
    except GitHubError as exc:
        print(f"fixbot: {exc}", file=sys.stderr)
        return Outcome(outcome=OutcomeKind.ERROR, reason=str(exc))


def print_outcome(outcome: Any, *, as_json: bool) -> None:
    """Print the outcome: one JSON object on stdout, or a short human summary."""
    if as_json:
        print(json.dumps(outcome.model_dump(mode="json")))
        return
    print(f"fixbot: {outcome.outcome.value}: {outcome.reason}")
    if outcome.report_path:
        print(f"report: {outcome.report_path}")


def command_action(args: argparse.Namespace) -> int:
    """`fixbot action`: the GitHub Action entry point."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from fixbot.core import environment
    from fixbot.github.action import main as action_main
    from fixbot.process import installation

    installation.enter_action()

    code: int = action_main(environment.given(os.environ))
    return code


def command_clean(args: argparse.Namespace, now: float | None = None) -> int:
    """`fixbot clean`: list fixbot's private folders, or remove those the rule (or `--all`,
    `--older-than`) names; exit 0, or 2 for a bad age."""
    import time

    from fixbot.github.stats.aggregate import parse_since
    from fixbot.process import cleanup, worlds

    now = time.time() if now is None else now
    base = worlds.state_base(os.geteuid(), os.environ)
    try:
        idle_s = now - parse_since(args.older_than, now)
    except ValueError as exc:
        print(f"fixbot clean: {str(exc).replace('--since', '--older-than')}", file=sys.stderr)
        return 2
    found = cleanup.listing(base)
    if args.list:
        _list_private(found, base)
        return 0
    freed, removed = 0, 0
    for private in found:
        why = "--all" if args.all and not private.in_use else private.reason(idle_s, now)
        if why is None:
            continue
        bytes_ = cleanup.size(private.path)
        if cleanup.remove(private):
            freed, removed = freed + bytes_, removed + 1
            print(f"removed {private.path} ({why})")
    print(f"{removed} of {len(found)} private folders removed, {freed / 1e6:.1f} MB freed")
    return 0


def _list_private(found: list[Private], base: Path) -> None:
    """Print each private folder under `base`: size, last use (UTC), whether in use, and its
    workspace (or that it is gone or was not recorded)."""
    import time

    from fixbot.process import cleanup

    if not found:
        print(f"no private folders under {base}")
    for private in found:
        used = time.strftime("%Y-%m-%d %H:%M", time.gmtime(private.used_at))
        where = str(private.workspace or "(workspace not recorded)")
        where += "" if private.workspace_exists or not private.workspace else " (gone)"
        busy = ", in use" if private.in_use else ""
        mb = cleanup.size(private.path) / 1e6
        print(f"{private.path}  {mb:.1f} MB  last used {used} UTC{busy}  {where}")


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and run the subcommand; return the process exit code.

    Called as the program (`argv` None), the process is hardened, leaves its current folder
    for `/` and, when it must, is re-executed in isolated mode without its secrets first, before
    argparse or any other fixbot module (`fixbot.startup.secrets_first`).
    """
    words = list(sys.argv[1:] if argv is None else argv)
    if argv is None:
        harden_process()
        words = secrets_first(words)
    parser = build_parser(run_options=words[:1] == ["run"], stats_options=words[:1] == ["stats"])
    args = parser.parse_args(words)
    if args.command == "run":
        return command_run(args)
    if args.command == "stats":
        from fixbot.github.stats.command import run as command_stats

        # fixbot's own folder is `/`: the paths given are the started-in folder's
        args.directory = str(START_DIR[0] / args.directory)
        args.png = str(START_DIR[0] / args.png) if args.png else None
        return command_stats(args, os.environ)
    if args.command == "action":
        return command_action(args)
    if args.command == "clean":
        return command_clean(args)
    if args.command == "bench":
        from fixbot.bench.cli import run as command_bench

        return command_bench(args)
    parser.print_help()
    return 2
