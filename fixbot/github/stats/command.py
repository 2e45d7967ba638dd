"""`fixbot stats [--repo owner/name] [--since 30d] [--json] [--mermaid] [--png FILE]`.

Reads fixbot's records of a repository on GitHub (`fixbot.github.stats.source`) with the token
in `GITHUB_TOKEN` or `GH_TOKEN` at `GITHUB_API_URL`, aggregates them (`aggregate`) and prints
them (`render`). Exit codes: 0, or 2 for bad usage or a refusal by GitHub (the message says
what to do).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from fixbot.core.errors import ConfigError, GitHubError
from fixbot.core.github_env import GitHubEnv
from fixbot.github.api.remote import repository_from
from fixbot.github.api.rest import GitHub
from fixbot.github.events.gates import BOT_LOGIN
from fixbot.github.stats import render
from fixbot.github.stats.aggregate import Stats, aggregate, parse_since
from fixbot.github.stats.source import collect


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `fixbot stats`."""
    parser.add_argument(
        "-C",
        dest="directory",
        default=".",
        metavar="DIR",
        help="a clone of the repository: its origin names it, its log gives fixbot's commits",
    )
    parser.add_argument("--repo", metavar="OWNER/NAME", help="the repository (default: origin)")
    parser.add_argument(
        "--since", default="30d", metavar="AGE", help="how far back: 30d, 12h, 4w (default 30d)"
    )
    parser.add_argument(
        "--login",
        default=BOT_LOGIN,
        metavar="LOGIN",
        help=f"the login fixbot writes its status comments as (default {BOT_LOGIN})",
    )
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON object")
    out.add_argument(
        "--mermaid", action="store_true", help="print Mermaid charts (for a job summary)"
    )
    parser.add_argument("--png", metavar="FILE", help="also draw the charts into a PNG file")


def run(args: argparse.Namespace, env: Mapping[str, str], out: TextIO | None = None) -> int:
    """Run `fixbot stats` with the parsed `args`, printing to `out` (None: `sys.stdout` as it is
    when called, not as it was when this module was imported); return the exit code."""
    out = sys.stdout if out is None else out
    try:
        stats = _stats(args, env)
        if args.png:
            render.png(stats, Path(args.png))
    except ConfigError as exc:
        print("fixbot stats: " + "; ".join(exc.problems), file=sys.stderr)
        return 2
    except GitHubError as exc:
        print(f"fixbot stats: {exc}", file=sys.stderr)
        return 2
    if args.json:
        out.write(render.as_json(stats) + "\n")
    elif args.mermaid:
        out.write(render.mermaid(stats))
    else:
        out.write(render.text(stats))
    return 0


def _stats(args: argparse.Namespace, env: Mapping[str, str]) -> Stats:
    github = GitHubEnv.read(env)
    token = github.require_token("fixbot stats needs a GitHub token")
    try:
        since = parse_since(args.since, time.time())
    except ValueError as exc:
        raise ConfigError([str(exc)]) from exc
    root = Path(args.directory)
    repo = repository_from(root, args.repo)
    gh = GitHub.connect(token, github.api_url, repo)
    return aggregate(repo, collect(gh, since, root, args.login), since)
