"""docs/zero-config.md's table is what `fixbot.infer.workflow` infers from the vendored
workflows, at least 90 % of it judged right, every wrong row says why, every project's source
is recorded."""

from __future__ import annotations

import importlib.util
import re
from types import ModuleType

from tests.fakes.paths import ROOT


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "table", ROOT / "scripts" / "zero_config_table.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_is_what_the_code_infers() -> None:
    table = script()
    rows = table.rows(table.PAGE.read_text(encoding="utf-8"))
    repos = [repo for repos in table.ECOSYSTEMS.values() for repo in repos]
    assert sorted(rows) == sorted(repos)
    for repo in repos:
        assert rows[repo][1:4] == table.inferred(repo), f"run scripts/zero_config_table.py ({repo})"


def test_at_least_90_percent_right_and_the_wrong_ones_say_why() -> None:
    table = script()
    page = table.PAGE.read_text(encoding="utf-8")
    rows = table.rows(page)
    judged = {repo: cells[4] for repo, cells in rows.items()}
    assert set(judged.values()) <= {"right", "wrong"}
    right = sum(1 for v in judged.values() if v == "right")
    assert len(rows) >= 25 and right / len(rows) >= 0.9
    for repo, cells in rows.items():
        if cells[4] == "wrong":
            assert cells[5] and f"**{repo}**" in page
    said = re.search(r"\*\*(\d+) of (\d+) right", page)
    assert said and (int(said.group(1)), int(said.group(2))) == (right, len(rows))


def test_four_ecosystems_seven_each_and_every_source_recorded() -> None:
    table = script()
    assert {k: len(v) for k, v in table.ECOSYSTEMS.items()} == {
        "python": 7,
        "node": 7,
        "go": 7,
        "rust": 7,
    }
    readme = (ROOT / "tests" / "data" / "README.md").read_text(encoding="utf-8")
    for repos in table.ECOSYSTEMS.values():
        for repo in repos:
            assert re.search(rf"`{re.escape(repo)}` at `[0-9a-f]{{40}}`", readme), repo
            assert (ROOT / "tests" / "data" / "workflows" / repo.replace("/", "__")).is_dir()
