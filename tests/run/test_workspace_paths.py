"""A check's output names the workspace it ran in, never fixbot's clone: its absolute paths
inside the workspace become repository paths, so the first request shows their code."""

from __future__ import annotations

from pathlib import Path

from fixbot.core.failure import CheckResult
from fixbot.logs.digest import digest
from fixbot.run.checkdigest import in_go_packages, in_repository

LOG = """\
======================================================================
FAIL: test_add (tests.test_core.T.test_add)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "{ws}/tests/test_core.py", line 7, in test_add
    self.assertEqual(add(1, 2), 3)
  File "{ws}/src/pkg/core.py", line 2, in add
    raise ValueError("off by one")
  File "/usr/lib/python3.11/unittest/case.py", line 873, in assertEqual
    assertion_func(first, second, msg=msg)
ValueError: off by one

----------------------------------------------------------------------
Ran 2 tests in 0.001s

FAILED (errors=1)
"""


def test_absolute_paths_in_the_workspace_become_repository_paths(tmp_path: Path) -> None:
    clone, workspace = tmp_path / "clone", tmp_path / "workspace"
    clone.mkdir()
    workspace.mkdir()
    log = tmp_path / "check.log"
    text = LOG.format(ws=workspace)
    log.write_text(text)
    result = CheckResult(
        command="python -m unittest",
        exit_code=1,
        duration_s=0.1,
        log_path=log,
        output_bytes=len(text),
        tail=text,
    )
    failure = digest(result, clone)  # read against fixbot's clone: the paths stay absolute
    assert f"{workspace}/src/pkg/core.py" in {loc.path for loc in failure.locations}
    paths = {loc.path for loc in in_repository(failure, workspace).locations}
    assert {"tests/test_core.py", "src/pkg/core.py"} <= paths
    assert "/usr/lib/python3.11/unittest/case.py" in paths  # outside the workspace: as printed
    assert in_repository(failure, None) == failure


GO_LOG = """\
--- FAIL: TestParse (0.00s)
    parse_test.go:266: unexpected number parsed from "12."; got 0; want 12
FAIL
FAIL\texample.org/fast/fastfloat\t0.159s
ok  \texample.org/fast\t0.020s
FAIL
"""


def test_a_go_test_file_named_relative_to_its_package_becomes_a_repository_path(
    tmp_path: Path,
) -> None:
    """go test prints a test file's lines relative to its package's folder: `parse_test.go:266`
    of the package `example.org/fast/fastfloat` is `fastfloat/parse_test.go` in the module
    `example.org/fast`; a name no package folder holds stays as printed."""
    (tmp_path / "go.mod").write_text("module example.org/fast\n\ngo 1.19\n")
    (tmp_path / "fastfloat").mkdir()
    (tmp_path / "fastfloat" / "parse_test.go").write_text("package fastfloat\n")
    log = tmp_path / "check.log"
    text = GO_LOG + "    other_test.go:3: elsewhere\n"
    log.write_text(text)
    result = CheckResult(
        command="go test ./...",
        exit_code=1,
        duration_s=0.1,
        log_path=log,
        output_bytes=len(text),
        tail=text,
    )
    failure = digest(result, tmp_path)
    assert "parse_test.go" in {loc.path for loc in failure.locations}
    moved = {(loc.path, loc.line) for loc in in_go_packages(failure, tmp_path).locations}
    assert ("fastfloat/parse_test.go", 266) in moved and ("other_test.go", 3) in moved
    (tmp_path / "go.mod").unlink()
    assert in_go_packages(failure, tmp_path) == failure
