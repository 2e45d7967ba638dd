"""Research tools: an installed dependency read from the check's own interpreter (a throw-away
venv) or node_modules, path-safe and bounded; web search through litellm's search API."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixbot.agent.research import MAX_CHARS, Research, read_dependency
from fixbot.core.models import OutcomeKind
from fixbot.core.secrets import check_environment
from fixbot.core.settings import Settings
from fixbot.run import engine
from tests.agent.test_diagnose import ANSWER
from tests.fakes.agent_repo import BUGGY_LINE, FIXED_LINE, model_settings, run_launcher
from tests.fakes.agent_repo import make_repo as make_calc_repo
from tests.fakes.model_server import FakeModelServer, raw, tool_call, tool_calls
from tests.fakes.packages import install_tiny_package, make_venv
from tests.fakes.repo import write_files


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """(a PATH whose python3 is a throw-away venv holding tinydep, that venv's site-packages)."""
    root = tmp_path_factory.mktemp("venv")
    bin_dir = make_venv(root / "env")
    site = install_tiny_package(bin_dir, root / "src")
    yield f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", site


SYSTEM_PYTHON = "/usr/bin/python3"
SETTINGS = Settings(check="python -m pytest -q")


def read(repo: Path, path: str, name: str, file: str | None = None) -> tuple[str, str | None]:
    """`read_dependency` as a run asks it: the check's PATH is `path`, its Python run through
    the run's launcher."""
    return read_dependency(repo, path, run_launcher(SETTINGS, repo, {"PATH": path}), name, file)


@pytest.mark.slow
def test_a_package_in_a_venv_of_debians_own_python_is_found(tmp_path: Path) -> None:
    """Debian's and Ubuntu's Python (`/usr/bin/python3` there) name their package folders
    dist-packages, and under `-S` its `site.getsitepackages` does not know it runs in a venv;
    the venv's own site-packages must still be found. (Found by the README's test command run
    as a normal user, whose `python3` is Debian's.)"""
    import subprocess

    probe = [SYSTEM_PYTHON, "-c", "import ensurepip, venv"]
    if not Path(SYSTEM_PYTHON).exists() or subprocess.run(probe, check=False).returncode:
        pytest.skip(f"no {SYSTEM_PYTHON} that makes virtual environments here")
    bin_dir = make_venv(tmp_path / "env", python=SYSTEM_PYTHON)
    site = install_tiny_package(bin_dir, tmp_path / "src")
    text, source = read(tmp_path, f"{bin_dir}{os.pathsep}/usr/bin", "tinydep")
    assert text.startswith(f"python package tinydep 0.3.1 (installed in {site})"), text
    assert source == "python package tinydep 0.3.1"


@pytest.mark.slow
def test_a_package_of_the_checks_interpreter_is_described_and_read(
    tmp_path: Path, venv: tuple[str, Path]
) -> None:
    path, site = venv
    text, source = read(tmp_path, path, "tinydep")
    assert text.startswith(f"python package tinydep 0.3.1 (installed in {site})")
    assert "summary: A tiny dependency" in text and "requires: attrs>=20" in text
    assert "  tinydep/__init__.py" in text and source == "python package tinydep 0.3.1"
    code, source = read(tmp_path, path, "tinydep", "tinydep/__init__.py")
    assert "    3|     return 41" in code
    assert source == "python package tinydep 0.3.1: tinydep/__init__.py"
    # fixbot's own interpreter does not have it: the check's PATH decided where to look
    assert read(tmp_path, "/usr/bin:/bin", "tinydep")[0].startswith("Error")


@pytest.mark.slow
def test_paths_outside_the_package_and_bad_names_are_refused(
    tmp_path: Path, venv: tuple[str, Path]
) -> None:
    path, _ = venv
    for escape in ("../pip/__init__.py", "/etc/passwd", "tinydep/../../../../etc/passwd"):
        text, source = read(tmp_path, path, "tinydep", escape)
        assert text.startswith("Error:") and "not a file of tinydep" in text and source is None
    assert read(tmp_path, path, "x; rm -rf /")[0].startswith("Error: 'x; rm")
    assert "no installed package nope_xyz" in read(tmp_path, path, "nope_xyz")[0]


@pytest.mark.slow  # builds a venv (the module's fixture): never in the fast tier
def test_no_code_of_the_project_environment_runs(tmp_path: Path, venv: tuple[str, Path]) -> None:
    path, site = venv
    marker = tmp_path / "ran"
    (site / "zz_probe.pth").write_text(f"import pathlib; pathlib.Path({str(marker)!r}).touch()\n")
    try:
        assert read(tmp_path, path, "tinydep")[1] is not None
    finally:
        (site / "zz_probe.pth").unlink()
    assert not marker.exists()


def test_search_keys_never_reach_the_check() -> None:
    env = {"TAVILY_API_KEY": "k", "EXA_API_KEY": "k", "PATH": "/bin", "EXAMPLE_DIR": "x"}
    assert check_environment(env) == {"PATH": "/bin", "EXAMPLE_DIR": "x"}


def test_a_javascript_package_from_node_modules_is_bounded(tmp_path: Path) -> None:
    manifest = {"name": "left-pad", "version": "1.3.0", "description": "pad", "dependencies": {}}
    write_files(
        tmp_path,
        {
            "node_modules/left-pad/package.json": json.dumps(manifest),
            "node_modules/left-pad/index.js": "x = 1;\n" * 5000,
        },
    )
    text, source = read(tmp_path, "", "left-pad", "index.js")
    assert source == "javascript package left-pad 1.3.0: index.js"
    assert len(text) <= MAX_CHARS + 100 and "characters cut" in text


def test_web_search_goes_through_litellms_search_api(
    model_server: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test-key")
    monkeypatch.setenv("TAVILY_API_BASE", f"http://127.0.0.1:{model_server.port}")
    result = {"title": "Fix for E123", "url": "https://example.org/e123", "content": "use x"}
    model_server.enqueue(raw({"results": [result]}))
    launcher = run_launcher(SETTINGS, Path("."), {})
    research = Research(Path("."), "", launcher, provider="tavily")
    assert [s["function"]["name"] for s in research.schemas()] == ["read_dependency", "search_web"]
    text = research.call("search_web", {"query": "E123 error"})
    assert text is not None and "Fix for E123" in text and "https://example.org/e123" in text
    assert research.sources == ["https://example.org/e123"]
    [request] = model_server.requests
    assert request["path"] == "/search" and request["body"]["query"] == "E123 error"
    unset = Research(Path("."), "", launcher).call("search_web", {"query": "q"})
    assert unset is not None and "not configured" in unset
    not_research = Research(Path("."), "", launcher).call("read_file", {"path": "a"})
    assert not_research is None
    bad = research.call("read_dependency", {"name": 3})
    assert bad is not None and bad.startswith("Error: bad arguments")


@pytest.mark.slow
def test_attempt_2_reads_a_dependency_and_the_report_lists_the_source(
    tmp_path: Path,
    venv: tuple[str, Path],
    model_server: FakeModelServer,
    model_env: dict[str, str],
) -> None:
    path, _ = venv
    repo = make_calc_repo(tmp_path / "calc")
    worse = BUGGY_LINE.replace("items[1:]", "items[2:]")
    model_server.enqueue(
        tool_call("replace_in_file", path="calc.py", old=BUGGY_LINE, new=worse),
        tool_call("finish", summary="skip less"),
        tool_call("submit_diagnosis", **ANSWER),
        tool_calls(("read_dependency", {"name": "tinydep", "path": "tinydep/__init__.py"})),
        tool_call("replace_in_file", path="calc.py", old=worse, new=FIXED_LINE),
        tool_call("finish", summary="sum every item"),
        tool_call("submit_review", findings=[]),
    )
    check = f"{sys.executable} -m pytest -q -p no:cacheprovider"
    settings = model_settings(model_server.url, check=check)
    env = {**os.environ, **model_env, "PATH": path}
    outcome, state = engine.run(settings, repo, env=env)
    assert outcome.outcome is OutcomeKind.FIXED and outcome.attempts == 2, outcome.reason
    bodies = model_server.bodies()
    tools = [[t["function"]["name"] for t in b["tools"]] for b in bodies]
    assert "read_dependency" not in tools[0] and "read_dependency" in tools[3]
    assert "search_web" not in tools[3]  # no search provider configured
    answer = bodies[4]["messages"][-1]
    assert answer["role"] == "tool" and "    3|     return 41" in answer["content"]
    source = "python package tinydep 0.3.1: tinydep/__init__.py"
    assert state.attempts[2].sources == [source]
    report = Path(outcome.report_path or "").read_text()
    assert f"## Research sources\n\n- {source}" in report
