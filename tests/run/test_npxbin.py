"""`npx jest` / `npx vitest` checks run as the runner's local bin (`fixbot.run.npxbin`): the
words it rewrites and those it leaves, and, through `run_check` with a stand-in jest bin, that
the runner's process then holds the channel's and the `--showConfig` preload's descriptors
(under npx it does not: npx starts it as a child process, which inherits no descriptor)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from fixbot.core.budget import Deadline
from fixbot.core.models import Attempt
from fixbot.core.observed import Observation
from fixbot.core.settings import Settings
from fixbot.process.launcher import Launcher
from fixbot.run.checkrun import CheckRun, run_check
from fixbot.run.npxbin import Direct, direct
from fixbot.run.outcome import verified_line

IN_CI = os.environ.get("CI", "").lower() == "true"  # read before conftest.py removes it


def project(tmp_path: Path, runner: str = "jest") -> Path:
    """A project at `tmp_path/app` whose node_modules/.bin holds `runner` (a link, as npm makes
    it) and a `src` folder below it."""
    app = tmp_path / "app"
    (app / "src").mkdir(parents=True)
    (app / "node_modules" / ".bin").mkdir(parents=True)
    (app / "node_modules" / "pkg").mkdir()
    (app / "node_modules" / "pkg" / "cli.js").write_text("#!/usr/bin/env node\n")
    (app / "node_modules" / ".bin" / runner).symlink_to("../pkg/cli.js")
    return app


@pytest.mark.parametrize(
    ("check", "rest"),
    [
        ("npx jest --ci", ["--ci"]),
        ("npx --no-install jest --ci src", ["--ci", "src"]),
        ("npx -y vitest run", ["run"]),
    ],
)
def test_an_npx_runner_with_a_local_bin_runs_that_bin(
    tmp_path: Path, check: str, rest: list[str]
) -> None:
    runner = "vitest" if "vitest" in check else "jest"
    app = project(tmp_path, runner)
    found = direct(check, app / "src")  # from the check's folder up, as npx looks
    binary = app / "node_modules" / ".bin" / runner
    assert found == Direct(" ".join([str(binary), *rest]), (str(binary.parent),))
    assert found.path("/usr/bin").split(os.pathsep) == [str(binary.parent), "/usr/bin"]


@pytest.mark.parametrize(
    ("check", "why"),
    [
        ("npx jest --ci", "no node_modules/.bin/jest from the check's folder up"),
        ("npx --package=jest@29 jest", "npx option --package=jest@29"),
        ("npx --ignore-existing vitest run", "npx option --ignore-existing"),
    ],
)
def test_an_npx_runner_npx_may_run_otherwise_stays_and_says_why(
    tmp_path: Path, check: str, why: str
) -> None:
    """No local bin (npx would fetch the runner, or take a global one), an option that can
    change what npx runs: the check runs as written, its runner unobserved, and says why."""
    app = project(tmp_path, "other")
    found = direct(check, app)
    assert found.check == check and not found.bins
    assert found.why.startswith(why) and "inherits no channel" in found.why


@pytest.mark.parametrize(
    ("check", "rest"),
    [
        ("npm exec --offline -- jest --ci", ["--ci"]),
        ("npm exec jest", []),
        ("npm x -y -- vitest run", ["run"]),
        ("pnpm exec jest --ci", ["--ci"]),
        ("pnpm jest --ci", ["--ci"]),
        ("pnpm --silent vitest run", ["run"]),
        ("yarn jest --ci", ["--ci"]),
        ("yarn -s run jest --ci", ["--ci"]),
        ("yarn run vitest run", ["run"]),
        ("bunx jest --ci", ["--ci"]),
    ],
)
def test_a_runner_launched_by_a_package_manager_with_a_local_bin_runs_that_bin(
    tmp_path: Path, check: str, rest: list[str]
) -> None:
    """npm exec, pnpm, yarn and bunx start the runner as npx does, in a child process: each is
    rewritten to the local bin (yarn, pnpm and bunx are not installed here: words alone)."""
    runner = "vitest" if "vitest" in check else "jest"
    app = project(tmp_path, runner)
    (app / "package.json").write_text('{"name": "app", "scripts": {"test": "jest"}}\n')
    found = direct(check, app / "src")
    binary = app / "node_modules" / ".bin" / runner
    assert found == Direct(" ".join([str(binary), *rest]), (str(binary.parent),))


@pytest.mark.parametrize(
    ("check", "why"),
    [
        ("npm exec jest --ci", "npm exec takes the options after jest as its own without --"),
        ("npm exec --package=jest@29 -- jest", "npm exec option --package=jest@29"),
        ("npm x -c jest", "npm x option -c"),
        ("pnpm exec --recursive jest", "pnpm exec option --recursive"),
        ("pnpm --workspace-root jest", "pnpm option --workspace-root"),
        ("yarn --cwd=other jest", "yarn option --cwd=other"),
        ("yarn run -T jest", "yarn run option -T"),
        ("bunx --bun jest", "bunx option --bun"),
    ],
)
def test_a_launcher_option_that_can_change_what_runs_stays_and_says_why(
    tmp_path: Path, check: str, why: str
) -> None:
    """Each launcher's options are an allowlist (`FORMS`); npm exec reads options after the
    runner as its own unless a `--` stands before it."""
    found = direct(check, project(tmp_path, "vitest" if "vitest" in check else "jest"))
    assert found.check == check and not found.bins
    assert (
        found.why.startswith(why) and "in a child process, which inherits no channel" in found.why
    )


@pytest.mark.parametrize("check", ["yarn jest --ci", "yarn run jest", "pnpm jest"])
def test_a_script_of_the_runners_name_is_the_script_yarn_and_pnpm_run(
    tmp_path: Path, check: str
) -> None:
    """`yarn jest` runs package.json's script `jest` where there is one, not the bin: the check
    stays and says why; a package.json that cannot be read (a link) counts as having it; npx,
    npm exec and pnpm exec run the bin whatever the scripts."""
    app = project(tmp_path)
    manifest = app / "package.json"
    manifest.write_text('{"name": "app", "scripts": {"jest": "jest --coverage"}}\n')
    found = direct(check, app / "src")
    assert found.check == check and "package.json has a script jest" in found.why
    for other in ("npx jest", "npm exec -- jest", "pnpm exec jest"):
        assert direct(other, app / "src").bins
    manifest.unlink()
    (tmp_path / "real.json").write_text('{"name": "app"}\n')
    manifest.symlink_to(tmp_path / "real.json")
    assert "package.json has a script jest" in direct(check, app / "src").why
    manifest.unlink()
    manifest.write_text('{"name": "app", "scripts": {"test": "jest"}}\n')
    assert direct(check, app / "src").bins


def test_npm_exec_of_a_package_naming_the_runners_bin_stays(tmp_path: Path) -> None:
    app = project(tmp_path)
    (app / "package.json").write_text('{"name": "app", "bin": {"jest": "cli.js"}}\n')
    found = direct("npm exec -- jest", app / "src")
    assert found.check == "npm exec -- jest" and "package.json names a jest bin" in found.why
    assert direct("yarn jest", app / "src").bins  # yarn runs node_modules's bin


def test_a_project_whose_own_package_names_the_runners_bin_stays(tmp_path: Path) -> None:
    """npx installs the local package and runs its own bin of that name, not node_modules's."""
    app = project(tmp_path)
    (app / "package.json").write_text('{"name": "app", "bin": {"jest": "cli.js"}}\n')
    found = direct("npx jest --ci", app / "src")
    assert found.check == "npx jest --ci" and "package.json names a jest bin" in found.why
    (app / "package.json").write_text('{"name": "app", "bin": {"app": "cli.js"}}\n')
    assert direct("npx jest --ci", app / "src").bins


@pytest.mark.parametrize(
    "check",
    [
        "jest --ci",
        "npx eslint .",
        "npm test",
        "npx jest --ci && npx jest",
        "yarn test",
        "npm run jest",
        "pnpm run jest",
        "node node_modules/.bin/jest",  # the runner's own process already: no rewrite
        "npm exec -- jest vitest",
        "pnpm --filter app exec jest",  # no launcher's runner: an option's value comes first
    ],
)
def test_other_checks_are_left_as_they_are(tmp_path: Path, check: str) -> None:
    assert direct(check, project(tmp_path)) == Direct(check)


def test_the_verified_line_says_why_an_npx_runner_was_not_observed() -> None:
    seen = Observation(unreached="no node_modules/.bin/jest from the check's folder up (...)")
    attempt = Attempt(number=1, fixer="scripted", tests={"a::b": "passed"}, seen=seen)
    assert verified_line(attempt) == (
        "Verified by the test runner's own report (1 tests) (the test runner was not observed:"
        " no node_modules/.bin/jest from the check's folder up (...))."
    )


# A stand-in for jest's bin: it writes, for each run, its words and whether each descriptor
# named in FIXBOT_OBSERVER and FIXBOT_JEST_LOADED is that very file in its own process (the
# inode the reporter and the preload check).
STAND_IN = """\
#!/bin/sh
held=""
for pair in $(echo "$FIXBOT_OBSERVER,$FIXBOT_JEST_LOADED" | tr ',' ' '); do
  fd=${pair%%:*}; ino=${pair#*:}
  [ "$(stat -L -c %i /proc/self/fd/$fd 2>/dev/null)" = "$ino" ] && held="$held $fd"
done
echo "$1 held:$held path:${PATH%%:*}" >> OUT
"""


@pytest.mark.parametrize("check", ["npx jest --ci", "npm exec --offline -- jest --ci"])
def test_an_observed_npx_jest_check_runs_jests_bin_holding_the_descriptors(
    tmp_path: Path, check: str
) -> None:
    """Through `run_check`: `jest --showConfig` and the check itself run the project's jest bin
    in the process fixbot started, which holds the preload's socket and the channel; run by
    npx or `npm exec` (the rewrite taken away) it holds neither."""
    if shutil.which("npx") is None:
        if IN_CI:
            pytest.fail("CI must run this test: npx is not installed")
        pytest.skip("npx is not installed")
    app = project(tmp_path)
    out = tmp_path / "out.txt"
    script = app / "node_modules" / "pkg" / "cli.js"
    script.write_text(STAND_IN.replace("OUT", str(out)))
    script.chmod(0o755)
    (app / "package.json").write_text('{"name": "app"}\n')
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    launcher = Launcher(app, env, namespace=False, deadline=Deadline.start(None))
    where = CheckRun(Settings(check=check), launcher, app, app, None, [])
    result, _, seen = run_check(where, tmp_path / "check.log")
    assert result.passed and seen is not None and seen.unreached == ""
    bins = app / "node_modules" / ".bin"
    show, check = out.read_text().splitlines()
    assert show.startswith("--showConfig held: ") and show.endswith(f"path:{bins}")
    assert len(show.split("held:")[1].split("path:")[0].split()) == 1  # the socket
    assert check.startswith("--reporters=default held: ") and check.endswith(f"path:{bins}")
    assert len(check.split("held:")[1].split("path:")[0].split()) == 2  # both channels
