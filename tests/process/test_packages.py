"""System packages: Debian packages named by the workflow, installed by fixbot as root before any
of the pull request's code runs, with `apt-get` by its absolute path and a clean environment."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path

import pytest

from fixbot.core.config import load_settings
from fixbot.core.errors import ConfigError
from fixbot.core.values import check_package_names
from fixbot.github import action
from fixbot.process import packages
from tests.fakes.action_env import ActionSandbox
from tests.fakes.github_server import FakeGitHub
from tests.fakes.paths import ROOT

# Records its argv, environment and working folder, one JSON line per call (apt-get itself needs
# root and Debian's mirror; the image engineer's harness runs the real one).
STAND_IN = """#!{python}
import json, os, sys
call = {{"argv": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd()}}
with open({log!r}, "a") as log:
    log.write(json.dumps(call) + "\\n")
"""


def stand_in(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "apt.log"
    apt = tmp_path / "apt-get"
    apt.write_text(STAND_IN.format(python=sys.executable, log=str(log)))
    apt.chmod(0o755)
    return apt, log


def calls(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.mark.parametrize(
    "bad",
    ["-o", "--allow-unauthenticated", "APT::Get", "nodejs=18.0", "http://x/y.deb", "a", "x;id"],
)
def test_only_debian_package_names_are_accepted(bad: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not Debian package names"):
        check_package_names(["nodejs", bad])
    env = {"INPUT_CHECK-COMMAND": "true", "INPUT_SYSTEM-PACKAGES": f"nodejs {bad}"}
    with pytest.raises(ConfigError, match="INPUT_SYSTEM-PACKAGES"):
        load_settings(tmp_path, {}, env, action=True)


def test_names_come_on_one_line_or_many_and_only_from_the_workflow(tmp_path: Path) -> None:
    assert check_package_names(["nodejs npm", "libpq-dev\ng++", "nodejs"]) == [
        "nodejs",
        "npm",
        "libpq-dev",
        "g++",
    ]
    (tmp_path / ".fixbot.toml").write_text('system-packages = "netcat-openbsd"\n')
    env = {"INPUT_CHECK-COMMAND": "true"}
    assert load_settings(tmp_path, {}, env, action=True).system_packages == []  # the PR's file
    env["INPUT_SYSTEM-PACKAGES"] = "nodejs npm"
    assert load_settings(tmp_path, {}, env, action=True).system_packages == ["nodejs", "npm"]


@pytest.mark.slow
def test_apt_get_runs_by_its_path_with_a_clean_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An earlier step's GITHUB_ENV (`APT_CONFIG` naming a file of the pull request, with a
    `DPkg::Pre-Invoke` hook) never reaches the root apt-get."""
    apt, log = stand_in(tmp_path)
    monkeypatch.setattr(packages, "is_root", lambda: True)
    monkeypatch.setenv("APT_CONFIG", str(tmp_path / "evil.conf"))
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_secretTOKEN0123456789")
    packages.install(["nodejs", "npm"], io.StringIO(), str(apt))
    made = calls(log)
    assert [c["argv"] for c in made] == [
        ["update"],
        ["install", "--yes", "--no-install-recommends", "nodejs", "npm"],
    ]
    for call in made:
        assert call["env"] == packages.APT_ENV and call["cwd"] == "/"
    assert packages.APT_GET == "/usr/bin/apt-get"  # root's own folder, never the job's PATH


def test_not_root_says_where_to_install_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(packages, "is_root", lambda: False)
    with pytest.raises(ConfigError, match="runner mode install them in a step of your own"):
        packages.install(["nodejs"], io.StringIO())
    packages.install([], io.StringIO())  # nothing to install: nothing to refuse


@pytest.mark.slow
def test_the_action_installs_them_before_any_code_of_the_branch_runs(
    tmp_path: Path, github_server: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "box").mkdir()
    apt, log = stand_in(tmp_path)
    order = tmp_path / "order.txt"
    monkeypatch.setattr(packages, "is_root", lambda: True)
    monkeypatch.setattr(packages, "APT_GET", str(apt))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.environ.get("GIT_CONFIG_GLOBAL", "/dev/null"))
    box = ActionSandbox(tmp_path / "box", github_server)
    sha = box.commit("main", {"app.py": "print('hi')\n"}, "initial")
    ws = box.workspace("main")
    inputs = {
        "system-packages": "nodejs npm",
        "setup-command": f"test -s {log} && echo set-up >> {order}",
        "check-command": "true",
        "fix-commands": "true",
    }
    env = box.env("push", box.push_event("main", sha), ws, inputs)
    out = io.StringIO()
    code = action.main(env, out=out)
    assert code == 0, out.getvalue()
    assert [c["argv"][0] for c in calls(log)] == ["update", "install"]
    assert order.read_text() == "set-up\n"  # the set-up ran after apt-get, and found its log


def test_every_readme_recipe_runs_no_apt_get_in_its_set_up() -> None:
    """The README's recipes for the container: the set-up runs as uid 1001, so none may need
    root; system packages go to `system-packages`, whose names must be Debian's."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("| project | `system-packages` | `setup-command` | `check-command` |")[1]
    rows = [line for line in table.split("\n\n")[0].splitlines()[1:] if line.startswith("|")]
    assert len(rows) >= 5
    for row in rows:
        _, project, system, setup, _check, _ = (cell.strip() for cell in row.split("|"))
        assert "apt-get" not in setup and "sudo" not in setup, project
        names = re.findall(r"`([^`]*)`", system)
        assert check_package_names(names) == " ".join(names).split(), project
    assert "| Node | `nodejs npm` | `npm ci` | `npm test` |" in readme
