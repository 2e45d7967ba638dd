"""`fixbot bench`'s own options: --list, --part, --shard, --merge, the progress lines and the
help's example (in-process, no case run)."""

from __future__ import annotations

import io
import json
import re
import shlex
from pathlib import Path

import pytest

from fixbot.bench import cli, command
from fixbot.bench.corpus import CORPUS, Part, load_corpus, part_of
from fixbot.bench.run import CaseResult, Grade, Runner
from fixbot.cli import build_parser


def bench(*words: str) -> int:
    return cli.run(build_parser().parse_args(["bench", *words]))


def test_list_names_every_case_with_its_part(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench("--list") == 0
    lines = capsys.readouterr().out.splitlines()
    cases = load_corpus(CORPUS)
    assert len(lines) == len(cases) + 1
    for case, line in zip(cases, lines, strict=False):
        assert line.split() == [case.id, case.family.value, case.ecosystem.value, part_of(case.id)]
    held = sum(1 for c in cases if part_of(c.id) is Part.HELD_OUT)
    assert lines[-1] == f"{len(cases)} cases ({len(cases) - held} dev, {held} held-out)"


def test_the_held_out_part_is_at_least_a_third_and_fixed_by_the_written_rule() -> None:
    ids = [c.id for c in load_corpus(CORPUS)]
    held = [i for i in ids if part_of(i) is Part.HELD_OUT]
    assert 3 * len(held) >= len(ids)
    # the rule bench/corpus/README.md writes down, recomputed here independently
    import hashlib

    for i in ids:
        number = int(hashlib.sha256(f"fixbot-bench-split-2026-11:{i}".encode()).hexdigest()[:8], 16)
        assert (part_of(i) is Part.HELD_OUT) == (number % 5 < 2)
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    assert "fixbot-bench-split-2026-11" in readme


def test_n_shards_split_the_cases_once_each() -> None:
    cases = load_corpus(CORPUS)
    shards = [cli.chosen(cases, None, (i, 4)) for i in range(1, 5)]
    ids = [c.id for shard in shards for c in shard]
    assert sorted(ids) == sorted(c.id for c in cases) and len(set(ids)) == len(ids)
    assert max(map(len, shards)) - min(map(len, shards)) <= 1
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench", "--list", "--shard", "5/4"])


def _result(case: str, grade: Grade) -> CaseResult:
    return CaseResult(
        id=case, family="regression", ecosystem="python", runner=Runner.ORACLE, grade=grade
    )


def _write(path: Path, results: list[CaseResult]) -> Path:
    from fixbot.bench import report

    path.write_text(report.as_json(results, [f"fixbot bench --{path.stem}"]), encoding="utf-8")
    return path


def test_merge_reports_the_shards_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _write(tmp_path / "1.json", [_result("a", Grade.FIXED)])
    two = _write(tmp_path / "2.json", [_result("b", Grade.FIXED), _result("c", Grade.FIXED)])
    assert bench("--merge", str(one), str(two), "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in data["cases"]] == ["a", "b", "c"] and data["totals"][0]["fixed"] == 3
    # every figure keeps the commands that produced it: the shards', then the merge's
    assert data["commands"][:2] == ["fixbot bench --1", "fixbot bench --2"]
    assert data["commands"][2].split()[0] == "fixbot"  # this process's argv, whatever it is
    # the oracle's exit code holds over the merged cases
    bad = _write(tmp_path / "3.json", [_result("d", Grade.NEVER_FAILED)])
    assert bench("--merge", str(one), str(bad), "--json") == 1
    # a case in two shards, or a file that is no bench output, is refused
    assert bench("--merge", str(one), str(one)) == 2
    (tmp_path / "x.json").write_text("{}")
    assert bench("--merge", str(tmp_path / "x.json")) == 2


def test_progress_outside_a_terminal_prints_count_grades_and_time() -> None:
    out = io.StringIO()
    with command.Progress(out) as progress:
        step = progress.stage("running", 2)
        step("a", "fixed")
        step("b", "escalated")
    lines = out.getvalue().splitlines()
    assert re.fullmatch(r"running 1/2 a fixed \(fixed 1; \d+ s\)", lines[0])
    assert re.fullmatch(r"running 2/2 b escalated \(fixed 1, escalated 1; \d+ s\)", lines[1])


def test_the_helps_examples_name_real_cases() -> None:
    parser = build_parser()
    bench_parser = next(
        a
        for a in parser._subparsers._group_actions[0].choices.values()
        if a.prog.endswith("bench")  # type: ignore[union-attr]
    )
    epilog = bench_parser.epilog or ""
    ids = {c.id for c in load_corpus(CORPUS)}
    named = re.findall(r"--case ([\w-]+)", epilog)
    assert named and set(named) <= ids
    for example in epilog.removeprefix("examples: ").split("; "):
        parser.parse_args(shlex.split(example)[1:])
