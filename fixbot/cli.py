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

from fixbot.arguments import build_parser, flags_from
from fixbot.startup import START_DIR, harden_process, secrets_first

if TYPE_CHECKING:
    from fixbot.core.models import Outcome
    from fixbot.process.cleanup import Private


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
    if settings.check:  # nothing to infer: the inference's modules stay unimported
        return settings
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
