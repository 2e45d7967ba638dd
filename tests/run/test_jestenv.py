"""fixbot's jest test environment for a check run (`fixbot.run.jestenv`): its one
content-addressed path, which keeps jest's transform cache warm, and the project's environment
as `jest --showConfig` resolved it, none named where that is unsure."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from fixbot.core.models import Attempt
from fixbot.core.observed import Observation
from fixbot.logs.dialects import jest
from fixbot.observe import judge
from fixbot.run import jestenv
from fixbot.run.outcome import verified_line
from tests.run.test_runner_reports import node_modules

CIRCUS = "/n/node_modules/jest-circus/build/runner.js"
RUNNER = "/n/node_modules/jest-runner/build/index.js"


def shown(*configs: tuple[str, str], runner: str = RUNNER) -> str:
    """`jest --showConfig`'s output for configurations of (testEnvironment, testRunner), run by
    `runner`, after a line the project's configuration printed."""
    listed = [
        {"testEnvironment": e, "testRunner": r, "runner": runner, "rootDir": "/p"}
        for e, r in configs
    ]
    return "configured!\n" + json.dumps({"configs": listed, "globalConfig": {}}, indent=2)


def test_the_environment_is_written_once_at_a_path_named_by_its_content(tmp_path: Path) -> None:
    """Two checks name the same file: its folder is named by the digest of its bytes, both
    read-only and fixbot's."""
    first = jestenv.environment_file(tmp_path)
    assert first is not None and first == jestenv.environment_file(tmp_path)
    digest = hashlib.sha256(jestenv.ENVIRONMENT.read_bytes()).hexdigest()[:16]
    assert first.parent.name == f"fixbot-jest-environment-{digest}"
    assert first.read_bytes() == jestenv.ENVIRONMENT.read_bytes()
    assert stat.S_IMODE(first.stat().st_mode) == 0o444
    assert stat.S_IMODE(first.parent.stat().st_mode) == 0o555
    assert [p.name for p in tmp_path.iterdir()] == [first.parent.name]  # nothing left over


@pytest.mark.parametrize("squat", ["other-bytes", "writable", "link"])
def test_a_squatted_environment_path_is_never_named(tmp_path: Path, squat: str) -> None:
    """The name taken before fixbot wrote it (other bytes, a folder others can write, a link
    to a folder of fixbot's file): no environment, rather than someone else's."""
    (tmp_path / "real").mkdir()
    real = jestenv.environment_file(tmp_path / "real")
    assert real is not None
    folder = tmp_path / real.parent.name
    if squat == "link":
        folder.symlink_to(real.parent)
    else:
        folder.mkdir()
        (folder / "environment.cjs").write_text(
            "module.exports = 1;" if squat == "other-bytes" else real.read_text()
        )
        folder.chmod(0o777 if squat == "writable" else 0o755)
    assert jestenv.environment_file(tmp_path) is None


@pytest.mark.parametrize(
    "output, why",
    [
        (shown(("/n/jest-environment-node/build/index.js", CIRCUS)), ""),
        (shown(("/a/env.js", CIRCUS), ("/b/env.js", CIRCUS)), "2 jest projects"),
        (shown(("/n/env.js", "/n/jest-jasmine2/build/index.js")), "not jest-circus"),
        (shown(("/n/env.js", CIRCUS), runner="/p/runner.js"), "not jest-runner"),
        (shown(("/n/env.mjs", CIRCUS)), "ES module"),
        (shown(("node", CIRCUS)), "not resolved"),
        ("Error: Cannot find module './jest.config.js'", "no configuration"),
        ('{\n  "configs": [', "no configuration"),
    ],
    ids=["one", "projects", "jasmine", "runner", "mjs", "unresolved", "failed", "cut"],
)
def test_the_projects_environment_is_the_one_jest_resolved_or_none(output: str, why: str) -> None:
    """One configuration run by jest-circus with a CommonJS environment: its path; anything
    else unsure: none, and why."""
    path, said = jestenv.shown_environment(output)
    assert (path is None) == bool(why) and why in said
    if not why:
        assert path == "/n/jest-environment-node/build/index.js"


def test_an_environment_in_an_es_module_package_is_unsure(tmp_path: Path) -> None:
    """A `.js` environment under a package.json whose `type` is `module`: `require` cannot load
    it, so none is named; under a CommonJS package it is."""
    (tmp_path / "package.json").write_text('{"type": "module"}')
    (tmp_path / "env.js").write_text("export default class {}")
    path, why = jestenv.shown_environment(shown((str(tmp_path / "env.js"), CIRCUS)))
    assert path is None and "ES module" in why
    (tmp_path / "package.json").write_text('{"type": "commonjs"}')
    assert jestenv.shown_environment(shown((str(tmp_path / "env.js"), CIRCUS)))[0] is not None


def test_a_package_json_that_is_a_fifo_or_a_link_is_unsure_not_waited_on(tmp_path: Path) -> None:
    """The project's package.json is read as every file its commands could write is: a fifo
    is not waited on (opened, it would block fixbot until a writer came), a link not followed;
    either is unsure, so no environment is named."""
    (tmp_path / "env.js").write_text("module.exports = class {}")
    os.mkfifo(tmp_path / "package.json")
    done: list[tuple[str | None, str]] = []
    reading = threading.Thread(
        target=lambda: done.append(
            jestenv.shown_environment(shown((str(tmp_path / "env.js"), CIRCUS)))
        ),
        daemon=True,
    )
    reading.start()
    reading.join(10)
    assert done and done[0][0] is None and "ES module" in done[0][1]
    (tmp_path / "package.json").unlink()
    (tmp_path / "real.json").write_text('{"type": "commonjs"}')
    (tmp_path / "package.json").symlink_to(tmp_path / "real.json")
    assert jestenv.shown_environment(shown((str(tmp_path / "env.js"), CIRCUS)))[0] is None


def test_jests_words_name_the_environment_unless_the_check_names_its_own() -> None:
    words = ["npx", "jest", "--ci"]
    added = jest.observe(words, "/o/r.cjs", "/t/environment.cjs")
    assert added is not None and "--testEnvironment=/t/environment.cjs" in added
    assert not any(w.startswith("--testEnvironment") for w in jest.observe(words, "/o/r.cjs") or [])
    own = jest.observe([*words, "--env=jsdom"], "/o/r.cjs", "/t/environment.cjs") or []
    assert [w for w in own if w.startswith(("--env", "--testEnvironment"))] == ["--env=jsdom"]


@dataclasses.dataclass(frozen=True)
class Shown:
    """A launcher's `output` whose commands print `text` and exit `code`."""

    code: int | None
    text: str
    ran: list[list[str]] = dataclasses.field(default_factory=list)

    def output(self, argv: list[str], cwd: Path, timeout: float) -> tuple[int | None, str]:
        self.ran.append(list(argv))
        return self.code, self.text


def test_the_check_runs_with_the_resolved_environment_or_without_one(tmp_path: Path) -> None:
    """`prepare` asks the check's own jest (`--showConfig` after `jest`), then names the
    environment it resolved in `VARIABLE`; a failed `--showConfig` names none."""
    good = Shown(0, shown(("/n/jest-environment-node/env.js", CIRCUS)))
    named, target, why = jestenv.prepare(good.output, "npx jest --ci", tmp_path, 30, tmp_path)
    assert good.ran == [["npx", "jest", "--showConfig", "--ci"]]
    assert why == "" and target is not None and target.endswith("/environment.cjs")
    assert named == {jestenv.VARIABLE: "/n/jest-environment-node/env.js"}
    bad = Shown(1, "Error")
    assert jestenv.prepare(bad.output, "npx jest --ci", tmp_path, 30, tmp_path)[:2] == ({}, None)
    assert "failed" in jestenv.prepare(bad.output, "npx jest --ci", tmp_path, 30, tmp_path)[2]
    own = Shown(0, shown(("/n/jest-environment-node/env.js", CIRCUS)))
    named, target, why = jestenv.prepare(own.output, "jest --env=jsdom", tmp_path, 30, tmp_path)
    assert (named, target, why) == ({}, None, "the check names its own test environment")
    assert own.ran == [["jest", "--showConfig", "--env=jsdom"]]  # for the files it loads


def test_jests_transform_cache_stays_warm_across_checks(tmp_path: Path) -> None:
    """Two checks' runs of real jest naming fixbot's environment: the second transforms
    nothing (no new file in jest's cache). With a path new in each run (the first version's
    per-run copy) jest's cache key changes and every file is transformed again."""
    root = node_modules()
    if root is None:
        pytest.skip("jest is not installed: bash scripts/node-tools.sh")
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "package.json").write_text('{"name": "p"}')
    (tmp_path / "p" / "a.test.js").write_text("test('a', () => { expect(1).toBe(1); });\n")
    cache = tmp_path / "cache"
    node = root / "jest-environment-node" / "build" / "index.js"
    env = {**os.environ, jestenv.VARIABLE: str(node)}

    def check() -> int:
        environment = jestenv.environment_file(tmp_path / "tmp")
        argv = [str(root / ".bin" / "jest"), "--ci", f"--cacheDirectory={cache}"]
        argv.append(f"--testEnvironment={environment}")
        done = subprocess.run(argv, cwd=tmp_path / "p", env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return sum(1 for _ in cache.rglob("*") if _.is_file())

    (tmp_path / "tmp").mkdir()
    first = check()
    assert first > 0 and check() == first


def test_the_report_says_why_jests_environment_was_not_observed() -> None:
    """A jest run without fixbot's test environment says so, and why, in the verified line; so
    does one whose node could not observe the ES modules jest's configuration imported."""
    seen = Observation(sessions=1, ended=1, runners=["jest"], tests={"a.test.js::a": "passed"})
    attempt = Attempt(number=1, tests={"a.test.js::a": "passed"}, seen=seen)
    assert "environment" not in verified_line(attempt)
    seen.environment = "2 jest projects"
    said = verified_line(attempt)
    assert "fixbot's observer inside jest (1 tests; jest's test environment not observed" in said
    assert "2 jest projects" in said
    assert "ES modules" not in said
    seen.unhooked = True  # node before 20.6 / 18.19: the preload had no `module.register`
    assert "ES modules of jest's configuration not observed: node has no module hooks" in (
        verified_line(attempt)
    )


def test_an_unusable_environment_path_falls_back_to_the_runs_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The content-addressed file changed or its name taken (code running as fixbot's own user
    can do both, for every later run): the environment is still named, copied into the run's
    own folder (`spare`), rather than the check left without it."""
    monkeypatch.setattr(jestenv, "environment_file", lambda: None)
    good = Shown(0, shown(("/n/jest-environment-node/env.js", CIRCUS)))
    named, target, why = jestenv.prepare(good.output, "npx jest", tmp_path, 30, tmp_path)
    assert why == "" and target == str(tmp_path / "environment.cjs") and named
    assert Path(target).read_bytes() == jestenv.ENVIRONMENT.read_bytes()


def test_a_fix_that_leaves_jests_environment_unnamed_is_not_verified() -> None:
    """The start's jest run streamed from the environment; the fix made fixbot unsure (two
    projects, say) so the verifying run had none: `observer-missing`, not a quiet green
    without round 21's control. A run in jest's workers (named, nothing streamed) is none."""
    start = Observation(sessions=1, ended=1, runners=["jest"], environed=["a.test.js"])
    last = Observation(sessions=1, ended=1, runners=["jest"], environment="2 jest projects")
    found = [f for f in judge.findings(start, last) if "test environment" in f]
    assert found and found[0].startswith("observer-missing:") and "2 jest projects" in found[0]
    last.environment = ""
    assert not [f for f in judge.findings(start, last) if "test environment" in f]


# round 25: jest.config.js requiring its configuration by a path it computes (no word to read)
