"""`fixbot stats` over a recorded history: the pure aggregation, its renderings, and the whole
command against the fake GitHub (status comments with run histories, fixbot's pull requests and
issues) and a real clone (fixbot's commit trailers)."""

from __future__ import annotations

import json
import re
import struct
import sys
import time
from pathlib import Path

import pytest

from fixbot.cli import main
from fixbot.core.models import Outcome, OutcomeKind
from fixbot.github.publish import memory, render
from fixbot.github.publish.memory import History, Rerun, RunRecord, Verdict
from fixbot.github.publish.plan import LABEL
from fixbot.github.stats.aggregate import Published, Records, aggregate, parse_since
from fixbot.github.stats.render import figure, mermaid, text
from tests.fakes.github_server import FakeGitHub
from tests.fakes.repo import git, make_repo
from tests.github.api.test_rest import openapi_routes

REPO = "octo/app"
NOW = int(time.time())
DAY = 86_400


def run(number: int, out: str, secs: int | None = None, **kw: object) -> RunRecord:
    return RunRecord.model_validate(
        {"run": str(number), "at": NOW - DAY, "kind": "fix", "out": out, "secs": secs, **kw}
    )


def recorded() -> list[History]:
    """Two pull requests' histories: 3 fixed (60 s, 120 s, 300 s to green), 1 escalated,
    1 refused, one run 40 days old, one still running, a flaky and a real re-run."""
    first = History(
        runs=[
            run(1, "fixed", 60, tok=1000, usd=0.01, n=1, classes=["fixable/assertion"]),
            run(2, "escalated", 900, tok=9000, usd=0.2, n=5, classes=["fixable/assertion"]),
            run(3, "fixed", 300, tok=3000, usd=0.03, n=2, classes=["fixable/import"]),
            run(9, "fixed", 10, tok=1, usd=1.0, n=1, at=NOW - 40 * DAY),  # too old
        ],
        reruns=[Rerun(run=50, sha="a" * 40, why="network", at=NOW - DAY, verdict=Verdict.FLAKY)],
    )
    second = History(
        runs=[
            run(4, "fixed", 120, tok=2000, usd=None, n=3, classes=["fixable/assertion"]),
            run(5, "refused"),
            run(6, "running"),
        ],
        reruns=[Rerun(run=51, sha="b" * 40, why="runner", at=NOW - DAY, verdict=Verdict.REAL)],
    )
    return [first, second]


def test_the_figures_of_a_recorded_history() -> None:
    published = [
        Published(kind="escalated", run="2", at=NOW - DAY),  # the same run as history run 2
        Published(kind="escalated", run="77", at=NOW - DAY),  # a push run's escalation issue
        Published(kind="fixed", run="78", at=NOW - 50 * DAY),  # too old
    ]
    records = Records(
        histories=recorded(), published=published, commits=[NOW - DAY, NOW - 60 * DAY]
    )
    stats = aggregate(REPO, records, NOW - 30 * DAY)

    assert stats.runs == 6 and stats.outcomes == {"fixed": 3, "escalated": 2, "refused": 1}
    assert (stats.flaky, stats.real) == (1, 1)
    assert stats.fix_rate == pytest.approx(3 / 5)
    assert stats.median_time_to_green_s == 120
    assert stats.attempts_per_fix == pytest.approx(6 / 3)
    assert stats.tokens_per_fix == pytest.approx(6000 / 3)
    assert stats.usd_per_fix == pytest.approx(0.04 / 3)  # one fix's cost unknown
    assert stats.usd_total == pytest.approx(0.24)
    assert stats.fix_commits == 1
    assert stats.classes == [("fixable/assertion", 3), ("fixable/import", 1)]


def test_no_runs_gives_unknowns_not_zeros() -> None:
    stats = aggregate(REPO, Records(), NOW - DAY)
    assert stats.runs == 0 and stats.fix_rate is None and stats.median_time_to_green_s is None
    assert "median time to green: unknown" in text(stats) and "runs: 0 (no runs yet)" in text(stats)
    day = time.strftime("%Y-%m-%d", time.gmtime(NOW - DAY))
    assert mermaid(stats) == f"fixbot on {REPO} since {day}: no runs yet\n"


@pytest.mark.parametrize(
    ("value", "age"), [("30d", 30 * DAY), ("12h", 12 * 3600), ("2w", 14 * DAY)]
)
def test_since(value: str, age: int) -> None:
    assert parse_since(value, 1_000_000_000) == 1_000_000_000 - age


@pytest.mark.parametrize("value", ["30", "d", "-3d", "3y", "yesterday"])
def test_a_bad_since_says_what_to_write(value: str) -> None:
    with pytest.raises(ValueError, match="like 30d, 12h or 4w"):
        parse_since(value, 0)


def test_the_mermaid_block_is_a_pie_and_a_bar_chart() -> None:
    stats = aggregate(REPO, Records(histories=recorded()), NOW - 30 * DAY)
    blocks = re.findall(r"```mermaid\n(.*?)\n```", mermaid(stats), re.S)
    pie, bars = (b.splitlines() for b in blocks)
    assert pie[0] == f"pie title fixbot runs on {REPO}"
    assert all(re.fullmatch(r'    "[^"]+" : \d+', line) for line in pie[1:])
    assert '    "flaky" : 1' in pie
    assert bars[0] == "xychart-beta"
    assert bars[2] == '    x-axis ["fixable/assertion", "fixable/import"]'
    assert bars[-1] == "    bar [3, 1]"


def status_comment(history: History, outcome: OutcomeKind) -> str:
    data = render.Report(
        outcome=Outcome(outcome=outcome, reason="r"), links=render.Links(run_url="https://run")
    )
    return render.status_comment(data, memory.encode(history))


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A clone whose log holds one fixbot commit (a `fixbot-attempt:` trailer) and one other."""
    repo = make_repo(tmp_path / "clone", {"a.py": "x = 1\n"})
    git(repo, "remote", "add", "origin", f"https://github.com/{REPO}.git")
    (repo / "a.py").write_text("x = 2\n")
    git(repo, "commit", "-qam", "fixbot: fix x\n\nfixbot-attempt: 1")
    return repo


def test_fixbot_stats_reads_the_records_on_github(
    github_server: FakeGitHub,
    clone: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    state = github_server.repo(REPO)
    for number, history in zip((7, 8), recorded(), strict=True):
        state.issues.append(github_server.issue_json(state, number, {"title": "pr"}, pull=True))
        github_server.add_comment(
            REPO, number, status_comment(history, OutcomeKind.FIXED), "github-actions[bot]"
        )
    spoof = History(runs=[run(99, "fixed", 1)])  # the marker, but not fixbot's comment
    github_server.add_comment(REPO, 7, status_comment(spoof, OutcomeKind.FIXED), "mallory")
    issue = {
        "title": "fixbot: the check fails on `main`",
        "labels": [LABEL],
        "body": "- run: https://github.com/octo/app/actions/runs/77\n",
    }
    state.issues.append(github_server.issue_json(state, 9, issue))
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_token")
    monkeypatch.setenv("GITHUB_API_URL", github_server.url)
    png = tmp_path / "stats.png"

    assert main(["stats", "-C", str(clone), "--json", "--png", str(png)]) == 0

    stats = json.loads(capsys.readouterr().out)
    assert stats["repo"] == REPO and stats["runs"] == 6
    assert stats["outcomes"] == {"fixed": 3, "escalated": 2, "refused": 1}
    assert (stats["flaky"], stats["median_time_to_green_s"], stats["fix_commits"]) == (1, 120, 1)
    header = png.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", header[16:24]) == (1000, 400)  # 10 x 4 inches at 100 dpi
    assert github_server.routes_called() <= openapi_routes()
    assert "GET /repos/{owner}/{repo}/issues/comments" in github_server.routes_called()

    assert main(["stats", "--repo", REPO, "--since", "30d"]) == 0
    printed = capsys.readouterr().out
    assert "runs: 6 (fixed 3, escalated 2, refused 1)" in printed
    assert "median time to green: 2 min 0 s" in printed


def test_fixbot_stats_of_a_repository_on_github_without_a_token_says_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    assert main(["stats", "--repo", REPO]) == 2
    said = capsys.readouterr().err
    assert "set GITHUB_TOKEN or GH_TOKEN" in said and "leave out --repo" in said


CHECK = "import pathlib, sys\nsys.exit(pathlib.Path('v.txt').read_text().strip() != 'ok')\n"
FIX = "import pathlib\npathlib.Path('v.txt').write_text('ok\\n')\n"


@pytest.mark.slow
def test_fixbot_stats_counts_the_runs_of_a_clone_without_github(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real `fixbot run` (fix command, verified, committed), then `fixbot stats -C` with no
    token and no origin: the run, its fix commit and its failure class are counted."""
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    repo = make_repo(tmp_path / "project", {"check.py": CHECK, "fix.py": FIX, "v.txt": "no\n"})
    python = sys.executable
    fixed = ["run", "--check", f"{python} check.py", "--fix-command", f"{python} fix.py"]
    assert main([*fixed, "-C", str(repo), "--json"]) == 0
    capsys.readouterr()

    assert main(["stats", "-C", str(repo), "--json"]) == 0
    printed = capsys.readouterr()
    stats = json.loads(printed.out)
    assert "counting the runs recorded in" in printed.err
    assert stats["repo"] == "project" and stats["runs"] == 1
    assert stats["outcomes"] == {"fixed": 1} and stats["fix_commits"] == 1
    assert stats["attempts_per_fix"] == 1 and stats["median_time_to_green_s"] is not None
    assert stats["classes"] == [["fixable/unknown", 1]]  # the check printed nothing


def test_fixbot_stats_with_no_runs_says_so_in_every_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    repo = make_repo(tmp_path / "empty", {"a.py": "x = 1\n"})
    png = tmp_path / "stats.png"
    before = time.time()
    assert main(["stats", "-C", str(repo), "--mermaid", "--png", str(png)]) == 0
    # the day 30 days before the call, read around it (the module's NOW is from collection
    # time, which can be the day before in a long suite that crosses midnight)
    days = {time.strftime("%Y-%m-%d", time.gmtime(t - 30 * DAY)) for t in (before, time.time())}
    assert capsys.readouterr().out in {f"fixbot on empty since {d}: no runs yet\n" for d in days}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    drawn = figure(aggregate("empty", Records(), NOW - DAY))
    assert drawn.axes == [] and [t.get_text() for t in drawn.texts] == [
        f"fixbot on empty since {time.strftime('%Y-%m-%d', time.gmtime(NOW - DAY))}: no runs yet"
    ]


@pytest.mark.slow
def test_fixbot_stats_in_the_clone_counts_runs_of_earlier_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fixbot stats` and `stats -C .` as a program started in the clone (it moves to `/`):
    both runs are counted, though the user committed between them (fixbot's clone was made
    again for the second)."""
    import os
    import subprocess

    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    repo = make_repo(tmp_path / "project", {"check.py": CHECK, "fix.py": FIX, "v.txt": "no\n"})
    python = sys.executable
    fixed = ["run", "--check", f"{python} check.py", "--fix-command", f"{python} fix.py"]
    assert main([*fixed, "-C", str(repo), "--json"]) == 0
    (repo / "notes.txt").write_text("more\n")
    git(repo, "add", "notes.txt")
    git(repo, "commit", "-q", "-m", "the user's own commit")
    assert main([*fixed, "-C", str(repo), "--json"]) == 0
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GH_TOKEN")}
    for extra in ([], ["-C", "."]):
        done = subprocess.run(
            [python, "-m", "fixbot", "stats", *extra, "--json"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        stats = json.loads(done.stdout)
        assert stats["runs"] == 2 and stats["outcomes"] == {"fixed": 1, "passed": 1}, stats


def test_stats_png_without_matplotlib_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # an import of it raises ImportError
    repo = make_repo(tmp_path / "empty", {"a.py": "x = 1\n"})
    assert main(["stats", "-C", str(repo), "--png", str(tmp_path / "s.png")]) == 2
    err = capsys.readouterr().err
    assert "pip install 'fixbot[chart]'" in err and "Traceback" not in err


def test_stats_help_says_it_counts_the_clones_runs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["stats", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "Count the runs `fixbot run` recorded for this clone" in shown
