"""The Go spectrum's ranking (`fixbot.agent.gocov`): functions every passing test also ran tie on
Ochiai's coefficient, and the evidence orders them, not their file names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixbot.agent import gocov, spectrum
from fixbot.core.budget import Deadline
from fixbot.process.launcher import Launcher

ERRORS = (
    'package route\n\nimport "errors"\n\nvar ErrMismatch = errors.New("method is not allowed")\n'
)
# alpha.go sorts before match.go: by name alone Alpha would lead
ALPHA = "package route\n\nfunc Alpha(x int) int {\n\treturn x + 1\n}\n"
MATCH = (
    'package route\n\nfunc Match(method string) error {\n\tif method == "POST" {\n'
    "\t\treturn nil\n\t}\n\treturn ErrMismatch\n}\n"
)
TESTS = (
    'package route\n\nimport "testing"\n\n'
    'func TestGet(t *testing.T) {\n\t_ = Alpha(1)\n\tif err := Match("GET"); err != nil {\n'
    '\t\tt.Fatal("unexpected:", err)\n\t}\n}\n\n'
    'func TestPut(t *testing.T) {\n\tif Match("PUT") != ErrMismatch || Match("POST") != nil {\n'
    '\t\tt.Fatal("put")\n\t}\n\t_ = Alpha(2)\n}\n'
)


def _module(tmp_path: Path) -> Path:
    repo = tmp_path / "mod"
    (repo / "route").mkdir(parents=True)
    (repo / "go.mod").write_text("module example.com/mod\n\ngo 1.19\n")
    for name, text in {"errors.go": ERRORS, "alpha.go": ALPHA, "match.go": MATCH}.items():
        (repo / "route" / name).write_text(text)
    (repo / "route" / "route_test.go").write_text(TESTS)
    return repo


@pytest.mark.slow
def test_a_tie_goes_to_the_function_using_the_error_the_output_quotes(tmp_path: Path) -> None:
    go = shutil.which("go")
    if go is None:
        pytest.skip("no go on PATH")
    repo = _module(tmp_path)
    env = {"PATH": f"{Path(go).parent}:/usr/bin:/bin", "HOME": str(tmp_path)}
    env["GOCACHE"] = str(tmp_path / "gocache")
    launcher = Launcher(repo, env, deadline=Deadline.start(None))
    output = "--- FAIL: TestGet (0.00s)\n    route_test.go:7: unexpected: method is not allowed\n"
    found, why = spectrum.suspects(
        launcher, repo, "go test ./...", ["TestGet"], 300, ["route/route_test.go"], output
    )
    assert why is None
    # both ran under the passing TestPut too (one score); Match returns the quoted error
    assert {s.score for s in found} == {1 / 2**0.5}
    assert [(s.path, s.name) for s in found] == [
        ("route/match.go", "Match"),
        ("route/alpha.go", "Alpha"),
    ]
    assert found[0].focus[0] == 7  # `return ErrMismatch` leads its focus lines


def test_a_tie_goes_to_the_function_the_failing_test_calls_over_its_callees(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "mod"
    repo.mkdir()
    (repo / "go.mod").write_text("module example.com/mod\n")
    (repo / "aaa.go").write_text("package m\n\nfunc helper() int {\n\treturn 1\n}\n")
    (repo / "zeta.go").write_text("package m\n\nfunc Zeta() int {\n\treturn helper() + 1\n}\n")
    (repo / "m_test.go").write_text(
        'package m\n\nimport "testing"\n\nfunc TestZeta(t *testing.T) {\n'
        '\tif Zeta() != 3 {\n\t\tt.Fatal("zeta")\n\t}\n}\n'
    )
    # each block ran once under the failing test and once more under a passing one
    blocks = ["example.com/mod/aaa.go:3.19,5.2 1 ", "example.com/mod/zeta.go:3.17,5.2 1 "]
    failing, whole = gocov.parse(
        f"{gocov.MARK}\n{gocov.FAILING}\n"
        + "".join(b + "1\n" for b in blocks)
        + f"{gocov.MARK}\n"
        + "".join(b + "2\n" for b in blocks)
    )
    assert [s.name for s in gocov.rank(repo, failing, whole)] == ["helper", "Zeta"]
    assert [s.name for s in gocov.rank(repo, failing, whole, ["TestZeta"])] == ["Zeta", "helper"]


P_CODE = (
    "package p\n\nfunc Get(b []byte) byte {\n\treturn b[3]\n}\n\n"
    "func Other() int {\n\treturn 2\n}\n"
)
P_TESTS = (
    'package p\n\nimport "testing"\n\n'
    "func TestGet(t *testing.T) {\n\tif Get([]byte{1}) != 0 {\n\t\tt.Fatal(0)\n\t}\n}\n\n"
    'func TestOther(t *testing.T) {\n\tt.Run("sub", func(t *testing.T) {\n'
    "\t\tif Other() != 2 {\n\t\t\tt.Fatal(2)\n\t\t}\n\t})\n}\n"
)
Q_CODE = (
    'package q\n\nimport "example.com/mod/p"\n\nfunc Twice() int {\n\treturn 2 * p.Other()\n}\n'
)
Q_TESTS = (
    'package q\n\nimport "testing"\n\n'
    "func TestTwice(t *testing.T) {\n\tif Twice() != 5 {\n\t\tt.Fatal(5)\n\t}\n}\n"
)


@pytest.mark.slow
def test_a_panicking_test_and_a_call_into_another_package_keep_their_spectrum(
    tmp_path: Path,
) -> None:
    """A panic ends the test binary before it writes its profile; q's test counts only q
    unless the module's packages are all covered."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("no go on PATH")
    repo = tmp_path / "mod"
    for folder, files in {
        "p": {"p.go": P_CODE, "p_test.go": P_TESTS},
        "q": {"q.go": Q_CODE, "q_test.go": Q_TESTS},
    }.items():
        (repo / folder).mkdir(parents=True)
        for name, text in files.items():
            (repo / folder / name).write_text(text)
    (repo / "go.mod").write_text("module example.com/mod\n\ngo 1.19\n")
    env = {"PATH": f"{Path(go).parent}:/usr/bin:/bin", "HOME": str(tmp_path)}
    env["GOCACHE"] = str(tmp_path / "gocache")
    launcher = Launcher(repo, env, deadline=Deadline.start(None))
    found, why = spectrum.suspects(launcher, repo, "go test ./...", ["TestGet", "TestTwice"], 300)
    assert why is None
    assert [(s.path, s.name, round(s.score, 3)) for s in found] == [
        ("p/p.go", "Get", 1.0),  # its test panicked
        ("q/q.go", "Twice", 1.0),
        ("p/p.go", "Other", 0.707),  # reached from q's test; p's passing test runs it too
    ]
    assert not list(repo.rglob("*.go.orig")) and "recover" not in (repo / "p/p_test.go").read_text()
