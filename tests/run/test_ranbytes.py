"""The tests' files held to the bytes fixbot put there (`fixbot/run/ranbytes.py`), the digests
the observers take as the import system runs a file's code (`fixbot/observe/modulecode.py`
`ran_digest`, `record_of`) and the stream's reading of them (`fixbot/observe/importrecord.py`):
round 43's pinned module rewritten on disk around its import. Real git, a real Python."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from fixbot.core.observed import Observation
from fixbot.observe.stream import parse
from fixbot.run.ranbytes import rewritten
from tests.fakes.pythons import PROJECT_PYTHON
from tests.fakes.repo import git, make_repo

CHECKS = "def assert_alike(a, b):\n    if a != b:\n        raise AssertionError(a)\n"
EMPTIED = "def assert_alike(a, b):\n    pass\n"
# the recorder's audit hook added first; a hook of the code's puts race.py's bytes back as the
# loader compiles the rewritten ones; checks.py rewritten around its import, helper.py imported
# as written, again.py's code run twice from other bytes
RUN = """\
import json, os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, {fixbot!r})
from fixbot.observe import modulecode
record, files = modulecode.recorder(os.path.join(os.getcwd(), ""))
sys.addaudithook(lambda event, args: record(args, event) if event in ("exec", "compile") else 0)
sys.path.insert(0, os.getcwd())
import importlib
def put_back(event, args):  # race.py's start bytes back between the loader's read and the exec
    if event == "compile" and isinstance(args[1], str) and args[1].endswith("race.py"):
        open("race.py", "w").write("RACE = 1\\n")
sys.addaudithook(put_back)
open("race.py", "w").write("RACE = 2\\n")
import race
start = open("checks.py", "rb").read()
open("checks.py", "w").write({emptied!r})
import checks
open("checks.py", "wb").write(start)
import helper, again
open("again.py", "w").write("VALUE = 2\\n")
importlib.reload(again)
print(json.dumps(files(True)))
"""


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.slow
def test_the_record_holds_each_files_bytes_as_its_code_ran(tmp_path: Path) -> None:
    """checks.py's digest is the emptied bytes the import system ran, not the start's written
    back; helper.py's its own; again.py, run from two different bytes, `-`; race.py, whose
    bytes on disk at the `exec` are not those the loader compiled, `-`. Fails with the digest
    taken at the record's time (checks.py), or without `compiled` (race.py the start's)."""
    for rel, text in {
        "checks.py": CHECKS,
        "helper.py": "X = 1\n",
        "again.py": "VALUE = 1\n",
        "race.py": "RACE = 1\n",
    }.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    root = str(Path(__file__).resolve().parents[2])
    script = RUN.format(fixbot=root, emptied=EMPTIED)
    done = subprocess.run(
        [PROJECT_PYTHON, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    record = json.loads(done.stdout)
    assert record["f"] == ["again.py", "checks.py", "helper.py", "race.py"]
    assert record["b"] == {
        "again.py": "-",
        "checks.py": _sha(EMPTIED),
        "helper.py": _sha("X = 1\n"),
        "race.py": "-",
    }


def _stream(*records: dict[str, object]) -> str:
    return "".join(f"n\t{json.dumps(record)}\n" for record in records)


def test_the_stream_keeps_each_files_digest_and_marks_two_processes_disagreeing() -> None:
    """Two processes' digests are joined; a file whose digests differ, or one that is no
    SHA-256, is `-`; a record with no `b` leaves `ran_bytes` None."""
    one, two = _sha("a"), _sha("b")
    seen = parse(
        _stream(
            {"k": "imported", "f": ["a.py", "b.py"], "b": {"a.py": one, "b.py": one}},
            {"k": "imported", "f": ["a.py", "b.py"], "b": {"a.py": one, "b.py": two, "c": 3}},
        ),
        "n",
    )
    assert seen.ran_bytes == {"a.py": one, "b.py": "-", "c": "-"}
    assert parse(_stream({"k": "imported", "f": ["a.py"]}), "n").ran_bytes is None


def _tests(path: str) -> bool:
    return path in ("checks.py", "eol.py", "made.py", "pkg/link.py", "pkg/mod.py")


def test_a_tests_file_run_from_bytes_other_than_the_trees_is_original_tests(tmp_path: Path) -> None:
    """checks.py and pkg/mod.py ran emptied where the tree holds the start's: `original-tests`;
    the tree's own bytes, a file the tree has no blob for (made by the run), a file that is
    not the tests', one whose checkout converts line ends (the checkout's bytes ran) and a
    link (its blob the target's name; read through, the target's bytes ran) are nothing;
    a file of the tests' named imported without a digest is not verified. Fails without
    `rewritten`."""
    files = {"checks.py": CHECKS, "app.py": "X = 1\n", "eol.py": "Y = 1\n"}
    files |= {".gitattributes": "eol.py text eol=crlf\n", "pkg/mod.py": CHECKS}
    repo = make_repo(tmp_path / "repo", files)
    (repo / "pkg" / "link.py").symlink_to("../checks.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a link")
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    honest = {"checks.py": _sha(CHECKS), "app.py": _sha("other"), "made.py": _sha("made")}
    honest |= {"eol.py": _sha("Y = 1\r\n"), "pkg/link.py": _sha(CHECKS), "pkg/mod.py": _sha(CHECKS)}
    assert rewritten(repo, tree, Observation(imported=[], ran_bytes=honest), _tests) == []
    emptied = Observation(imported=[], ran_bytes={**honest, "checks.py": _sha(EMPTIED)})
    emptied.ran_bytes["pkg/mod.py"] = _sha(EMPTIED)  # type: ignore[index]
    found = rewritten(repo, tree, emptied, _tests)
    assert [cheat.rule for cheat in found] == ["original-tests"]
    assert "checks.py, pkg/mod.py, the tests'" in str(found[0])
    cut = Observation(imported=["checks.py"], ran_bytes={})
    assert [cheat.rule for cheat in rewritten(repo, tree, cut, _tests)] == ["original-tests"]
    assert rewritten(repo, tree, Observation(imported=["checks.py"]), _tests) == []
