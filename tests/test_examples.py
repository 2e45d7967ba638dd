"""The example workflows: what they trigger on, the permissions they ask for, the inputs they
pass (scripts/lint.sh runs actionlint and GitHub's workflow schema on them too)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.fakes.action_env import action_inputs
from tests.fakes.paths import ROOT

ON_CI_FAILURE = ROOT / "examples" / "fixbot-on-ci-failure.yml"


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


def test_on_ci_failure_triggers_on_completed_ci_runs_only() -> None:
    workflow = load(ON_CI_FAILURE)
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as a boolean
    assert triggers == {"workflow_run": {"workflows": ["CI"], "types": ["completed"]}}
    job = workflow["jobs"]["fixbot"]
    assert "github.event.workflow_run.conclusion" in job["if"]
    assert "head_repository.full_name == github.repository" in job["if"]  # no fork code


def test_on_ci_failure_asks_for_the_permissions_it_needs_and_nothing_more() -> None:
    workflow = load(ON_CI_FAILURE)
    assert workflow["permissions"] == {}
    assert workflow["jobs"]["fixbot"]["permissions"] == {
        "contents": "write",
        "pull-requests": "write",
        "issues": "write",
        "actions": "write",
    }


def test_on_ci_failure_has_one_concurrency_group_per_head_branch() -> None:
    group = load(ON_CI_FAILURE)["concurrency"]["group"]
    assert "github.event.workflow_run.head_branch" in group


def test_on_ci_failure_passes_only_real_inputs() -> None:
    steps = load(ON_CI_FAILURE)["jobs"]["fixbot"]["steps"]
    fixbot = next(s for s in steps if "fixbot" in s.get("uses", ""))
    assert set(fixbot["with"]) <= set(action_inputs())


def test_the_readme_shows_the_example_as_it_is() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"```yaml\n{ON_CI_FAILURE.read_text(encoding='utf-8')}```" in readme


STATS = ROOT / "examples" / "fixbot-stats.yml"


def test_stats_runs_weekly_and_reads_only() -> None:
    workflow = load(STATS)
    assert set(workflow[True]) == {"schedule", "workflow_dispatch"}
    assert workflow["permissions"] == {}
    assert workflow["jobs"]["stats"]["permissions"] == {
        "contents": "read",
        "issues": "read",
        "pull-requests": "read",
    }


def test_stats_runs_real_fixbot_stats_commands() -> None:
    import shlex

    from fixbot.arguments import build_parser

    steps = load(STATS)["jobs"]["stats"]["steps"]
    script = next(s["run"] for s in steps if s.get("name") == "fixbot stats")
    commands = [line.strip() for line in script.splitlines() if line.strip().startswith("fixbot")]
    assert len(commands) == 3 and any("--mermaid" in c for c in commands)
    for command in commands:
        args = build_parser().parse_args(shlex.split(command)[1:])
        assert args.command == "stats" and args.since == "7d"


BENCH = ROOT / "examples" / "fixbot-bench-shards.yml"


def test_bench_shards_cover_every_shard_and_merge_them() -> None:
    import shlex

    from fixbot.arguments import build_parser

    workflow = load(BENCH)
    assert workflow["permissions"] == {}
    shard, merge = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    count = int(workflow["env"]["SHARDS"])
    assert shard["strategy"]["matrix"]["shard"] == list(range(1, count + 1))
    assert shard["permissions"] == {"contents": "read"} and merge["permissions"] == {}
    assert merge["needs"] == "shard"
    run = next(s for s in shard["steps"] if s.get("name") == "fixbot bench, one shard")
    words = shlex.split(run["run"].replace('"$SHARD/$SHARDS"', f"2/{count}"))
    args = build_parser().parse_args(words[1 : words.index(">")])
    assert args.shard == (2, count) and args.json and args.corpus is not None
    script = next(s for s in merge["steps"] if s.get("name") == "fixbot bench, merged")["run"]
    for line in script.strip().splitlines():
        words = shlex.split(line)
        merged = build_parser().parse_args(words[1 : words.index(">" if ">" in words else ">>")])
        assert [str(p) for p in merged.merge] == ["shard-*.json"]
