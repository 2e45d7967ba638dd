"""The command line: `fixbot run` (the loop on this machine) and `fixbot action` (in a workflow).

Only argparse is imported at start-up so `fixbot --help` answers fast; pydantic, litellm and
PyGithub are imported when a command runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fixbot import __version__

EXIT_CANCELLED = 143  # 128 + SIGTERM, as a shell reports it

# (flag, settings field, help, extra argparse keywords)
RUN_OPTIONS: list[tuple[str, str, str, dict[str, Any]]] = [
    ("--check", "check", "the check command, run with the shell (required)", {}),
    ("--desired", "desired", "what 'fixed' means, in words, for the model", {}),
    ("--max-attempts", "max_attempts", "fix attempts before giving up (default 5)", {}),
    ("--timeout", "timeout", "seconds allowed for one check run (default 600)", {}),
    (
        "--backoff",
        "backoff",
        "first backoff before re-running a transient failure, seconds (default 1)",
        {},
    ),
    (
        "--circuit-breaker",
        "circuit_breaker",
        "same failure this many times in a row stops (default 3)",
        {},
    ),
    (
        "--max-transient-retries",
        "max_transient_retries",
        "re-runs of a transient failure (default 3)",
        {},
    ),
    ("--max-duration", "max_duration", "wall-time budget for the run, seconds", {}),
    (
        "--fix-command",
        "fix_commands",
        "a deterministic fix command, e.g. 'ruff check --fix' (repeatable)",
        {"action": "append"},
    ),
    (
        "--model",
        "model",
        "litellm model string, e.g. anthropic/claude-sonnet-4-5 or openai/gpt-4o",
        {},
    ),
    ("--api-base", "api_base", "base URL of an OpenAI-compatible server", {}),
    (
        "--fallback-model",
        "fallback_models",
        "model tried when the model is unavailable (repeatable)",
        {"action": "append"},
    ),
    ("--escalation-model", "escalation_model", "model used from attempt 2 on", {}),
    ("--max-tokens-per-run", "max_tokens_per_run", "token budget for the run", {}),
    ("--max-cost-usd", "max_cost_usd", "cost budget for the run, USD", {}),
    ("--temperature", "temperature", "model sampling temperature (default 0)", {}),
    ("--edit-protocol", "edit_protocol", "auto | tools | text (default auto)", {}),
    ("--max-tool-calls", "max_tool_calls", "model tool calls per attempt (default 30)", {}),
    (
        "--max-diff-lines",
        "max_diff_lines",
        "diff size since the start that stops the run (default 500)",
        {},
    ),
    (
        "--protected-path",
        "protected_paths",
        "glob the model may never edit (repeatable; default .github/workflows/**)",
        {"action": "append"},
    ),
    (
        "--allow-test-edits",
        "allow_test_edits",
        "allow deleting or skipping tests",
        {"action": argparse.BooleanOptionalAction},
    ),
    (
        "--review",
        "review",
        "self-review the diff once green (default on)",
        {"action": argparse.BooleanOptionalAction},
    ),
    ("--max-review-rounds", "max_review_rounds", "review fix rounds (default 2)", {}),
    ("--state-dir", "state_dir", "state folder inside the repository (default .fixbot)", {}),
    (
        "--commit",
        "commit",
        "commit each verified fix as 'fixbot: <summary>' (default on)",
        {"action": argparse.BooleanOptionalAction},
    ),
    (
        "--allow-dirty",
        "allow_dirty",
        "start on a working tree with uncommitted changes",
        {"action": "store_const", "const": True},
    ),
]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
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
        "circuit breaker opens. Every option can also be set as FIXBOT_<NAME> or in "
        "[tool.fixbot] of pyproject.toml / .fixbot.toml (flags beat env beats file).",
    )
    for flag, field, text, extra in RUN_OPTIONS:
        run.add_argument(flag, dest=field, help=text, default=None, **extra)
    run.add_argument(
        "--resume",
        dest="resume",
        action="store_const",
        const=True,
        default=None,
        help="continue an unfinished run from its state file (default)",
    )
    run.add_argument(
        "--fresh",
        dest="resume",
        action="store_const",
        const=False,
        help="discard any earlier state and start over",
    )
    run.add_argument("--hint", help="a hint for the model (untrusted text, like a PR comment)")
    run.add_argument("-C", dest="directory", default=".", help="run in this repository (default .)")
    run.add_argument("--json", action="store_true", help="print the outcome as one JSON object")
    commands.add_parser(
        "action",
        help="run as the GitHub Action (reads INPUT_* and GITHUB_* variables)",
        description="The entry point of the Docker container action; see action.yml.",
    )
    return parser


def flags_from(args: argparse.Namespace) -> dict[str, Any]:
    """The settings fields given on the command line (None where not given)."""
    fields = [field for _, field, _, _ in RUN_OPTIONS] + ["resume"]
    return {field: getattr(args, field) for field in fields}


def command_run(args: argparse.Namespace) -> int:
    """`fixbot run`: load settings, run the loop, print the outcome; return the exit code."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from fixbot import engine, git
    from fixbot.models import Outcome, OutcomeKind
    from fixbot.progress import make_progress
    from fixbot.settings import ConfigError, load_settings

    directory = Path(args.directory).resolve()
    names = {field: flag for flag, field, _, _ in RUN_OPTIONS}
    try:
        root = git.toplevel(directory) if directory.is_dir() else None
        if root is None:
            raise ConfigError(
                [f"{directory} is not a git repository: run fixbot inside a clone, or pass -C DIR"]
            )
        settings = load_settings(directory, flags_from(args), os.environ, names)
        outcome, _ = engine.run(
            settings, directory, env=os.environ, progress=make_progress(os.environ), hint=args.hint
        )
    except ConfigError as exc:
        outcome = Outcome(outcome=OutcomeKind.ERROR, reason="; ".join(exc.problems))
        print("fixbot: configuration error:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  - {problem}", file=sys.stderr)
    except engine.Cancelled:
        print(
            "fixbot: cancelled; state saved, continue with the same command (it resumes)",
            file=sys.stderr,
        )
        return EXIT_CANCELLED
    print_outcome(outcome, as_json=args.json)
    return outcome.exit_code


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
    from fixbot.github.action import main as action_main

    code: int = action_main(os.environ)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and run the subcommand; return the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "run":
        return command_run(args)
    if args.command == "action":
        return command_action(args)
    parser.print_help()
    return 2
