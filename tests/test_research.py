"""Research tools: an installed dependency read from the check's own interpreter (a throw-away
venv) or node_modules, path-safe and bounded; web search through litellm's search API."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixbot.agent.research import MAX_CHARS, Research, read_dependency
from tests.fakes.model_server import FakeModelServer, raw
from tests.fakes.packages import install_tiny_package, make_venv
from tests.fakes.repo import write_files


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """(a PATH whose python3 is a throw-away venv holding tinydep, that venv's site-packages)."""
    root = tmp_path_factory.mktemp("venv")
    bin_dir = make_venv(root / "env")
    site = install_tiny_package(bin_dir, root / "src")
    yield f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", site


def test_a_package_of_the_checks_interpreter_is_described_and_read(
    tmp_path: Path, venv: tuple[str, Path]
) -> None:
    path, site = venv
    text, source = read_dependency(tmp_path, path, "tinydep")
    assert text.startswith(f"python package tinydep 0.3.1 (installed in {site})")
    assert "summary: A tiny dependency" in text and "requires: attrs>=20" in text
    assert "  tinydep/__init__.py" in text and source == "python package tinydep 0.3.1"
    code, source = read_dependency(tmp_path, path, "tinydep", "tinydep/__init__.py")
    assert "    3|     return 41" in code
    assert source == "python package tinydep 0.3.1: tinydep/__init__.py"
    # fixbot's own interpreter does not have it: the check's PATH decided where to look
    assert read_dependency(tmp_path, "/usr/bin:/bin", "tinydep")[0].startswith("Error")


def test_paths_outside_the_package_and_bad_names_are_refused(
    tmp_path: Path, venv: tuple[str, Path]
) -> None:
    path, _ = venv
    for escape in ("../pip/__init__.py", "/etc/passwd", "tinydep/../../../../etc/passwd"):
        text, source = read_dependency(tmp_path, path, "tinydep", escape)
        assert text.startswith("Error:") and "not a file of tinydep" in text and source is None
    assert read_dependency(tmp_path, path, "x; rm -rf /")[0].startswith("Error: 'x; rm")
    assert "no installed package nope_xyz" in read_dependency(tmp_path, path, "nope_xyz")[0]


def test_no_code_of_the_project_environment_runs(tmp_path: Path, venv: tuple[str, Path]) -> None:
    path, site = venv
    marker = tmp_path / "ran"
    (site / "zz_probe.pth").write_text(f"import pathlib; pathlib.Path({str(marker)!r}).touch()\n")
    try:
        assert read_dependency(tmp_path, path, "tinydep")[1] is not None
    finally:
        (site / "zz_probe.pth").unlink()
    assert not marker.exists()


def test_a_javascript_package_from_node_modules_is_bounded(tmp_path: Path) -> None:
    manifest = {"name": "left-pad", "version": "1.3.0", "description": "pad", "dependencies": {}}
    write_files(
        tmp_path,
        {
            "node_modules/left-pad/package.json": json.dumps(manifest),
            "node_modules/left-pad/index.js": "x = 1;\n" * 5000,
        },
    )
    text, source = read_dependency(tmp_path, "", "left-pad", "index.js")
    assert source == "javascript package left-pad 1.3.0: index.js"
    assert len(text) <= MAX_CHARS + 100 and "characters cut" in text


def test_web_search_goes_through_litellms_search_api(
    model_server: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test-key")
    monkeypatch.setenv("TAVILY_API_BASE", f"http://127.0.0.1:{model_server.port}")
    result = {"title": "Fix for E123", "url": "https://example.org/e123", "content": "use x"}
    model_server.enqueue(raw({"results": [result]}))
    research = Research(Path("."), "", provider="tavily")
    assert [s["function"]["name"] for s in research.schemas()] == ["read_dependency", "search_web"]
    text = research.call("search_web", {"query": "E123 error"})
    assert text is not None and "Fix for E123" in text and "https://example.org/e123" in text
    assert research.sources == ["https://example.org/e123"]
    [request] = model_server.requests
    assert request["path"] == "/search" and request["body"]["query"] == "E123 error"
    assert Research(Path("."), "").call("search_web", {"query": "q"}) is None  # no provider
