"""`fixbot stats [--repo owner/name] [--since 30d] [--json] [--mermaid] [--png FILE]`.

Reads the runs `fixbot run` recorded in the clone (`fixbot.github.stats.local`: its event log
and its commits' `fixbot-attempt:` trailers) and, with a token in `GITHUB_TOKEN` or `GH_TOKEN`,
fixbot's records of the repository on GitHub at `GITHUB_API_URL` (`fixbot.github.stats.source`);
aggregates them (`aggregate`) and prints them (`render`). Without a token only the clone is
read (a note on stderr says so), unless `--repo` asks for GitHub. Exit codes: 0, or 2 for bad
usage or a refusal by GitHub (the message says what to do).
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
from fixbot.core.secrets import DEFAULT_STATE_DIR  # where `fixbot run` keeps its event log
from fixbot.github.api.remote import repository_from
from fixbot.github.api.rest import GitHub
from fixbot.github.events.gates import BOT_LOGIN
from fixbot.github.publish.memory import History
from fixbot.github.stats import local, render
from fixbot.github.stats.aggregate import Records, Stats, aggregate, parse_since
from fixbot.github.stats.source import collect, commits


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `fixbot stats`."""
    parser.add_argument(
        "-C",
        dest="directory",
        default=".",
        metavar="DIR",
        help="a clone of the repository: its origin names it, its log gives fixbot's commits",
    )
    parser.add_argument(
        "--repo",
        metavar="OWNER/NAME",
        help="the repository on GitHub (default: origin; needs GITHUB_TOKEN or GH_TOKEN)",
    )
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
    token = github.token
    if not token and args.repo:
        github.require_token(
            f"reading {args.repo} on GitHub needs a token (or leave out --repo to count the "
            "runs recorded in this clone)"
        )
    try:
        since = parse_since(args.since, time.time())
    except ValueError as exc:
        raise ConfigError([str(exc)]) from exc
    root = Path(args.directory)
    mine = local.runs(root / DEFAULT_STATE_DIR)
    if not token:
        print(
            "fixbot stats: no GITHUB_TOKEN or GH_TOKEN: counting the runs recorded in "
            f"{root.resolve()} only",
            file=sys.stderr,
        )
        records = Records(histories=[History(runs=mine)], commits=commits(root, since))
        return aggregate(_local_name(root), records, since)
    repo = repository_from(root, args.repo)
    gh = GitHub.connect(token, github.api_url, repo)
    records = collect(gh, since, root, args.login)
    records.histories.append(History(runs=mine))
    return aggregate(repo, records, since)


def _local_name(root: Path) -> str:
    """The clone's GitHub name when its origin names one, else its folder's name."""
    try:
        return repository_from(root, None)
    except ConfigError:
        return root.resolve().name
