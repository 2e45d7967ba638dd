"""Two tiny prepared cases for the bench's own tests: local packages with a shipped bug, no
download. Each failing test is an assertion, so the traceback ends in the test and not in the
buggy library line (the shape that defeats localization from the traceback alone)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fixbot.bench.run import Job

CHECK = f"{sys.executable} -m pytest -q -p no:cacheprovider tests/test_stats.py"
HIDDEN = f"{sys.executable} -m pytest -q -p no:cacheprovider tests/test_hidden.py"

FILLER = "".join(
    f"\n\ndef helper_{n}(values):\n    return [v * {n} for v in values if v > {n}]\n"
    for n in range(40)
)
STATS_BROKEN = (
    '"""Small statistics."""\n\n\ndef total(values):\n    return sum(values)\n\n\n'
    "def mean(values):\n    if not values:\n        return 0.0\n"
    "    return total(values) / (len(values) + 1)\n\n\n"
    "def spread(values):\n    return max(values) - min(values)\n" + FILLER
)
STATS_FIXED = STATS_BROKEN.replace("(len(values) + 1)", "len(values)")
TEST = (
    "from stats.core import mean, spread\n\n\n"
    "def test_mean():\n    assert mean([2, 4]) == 3\n\n\n"
    "def test_spread():\n    assert spread([1, 5]) == 4\n\n\n"
    "def test_empty():\n    assert mean([]) == 0.0\n"
)
HIDDEN_TEST = (
    "from stats.core import mean\n\n\ndef test_three():\n    assert mean([1, 2, 6]) == 3\n"
)

SLUG_BROKEN = (
    "def slug(title):\n    words = title.lower().split()\n    return '_'.join(words)\n\n\n"
    "def shout(text):\n    return text.upper() + '!'\n"
)
SLUG_FIXED = SLUG_BROKEN.replace("'_'.join", "'-'.join")
SLUG_TEST = (
    "from stats.text import shout, slug\n\n\n"
    "def test_slug():\n    assert slug('Hello Big World') == 'hello-big-world'\n\n\n"
    "def test_shout():\n    assert shout('hi') == 'HI!'\n"
)
SLUG_HIDDEN = "from stats.text import slug\n\n\ndef test_one():\n    assert slug('One') == 'one'\n"


def _git(repo: Path, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", *args],
        cwd=repo,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _make(root: Path, files: dict[str, str], fixed: dict[str, str], hidden: dict[str, str]) -> Path:
    """A prepared repository (one commit "broken"); returns it after writing patches beside."""
    repo = root / "repo"
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    _git(repo.parent, "init", "-q", "-b", "main", str(repo))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "broken")
    for name, change in (("fix", fixed), ("hidden", hidden)):
        for rel, text in change.items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text)
        _git(repo, "add", "-A", "-N")
        (root / f"{name}.patch").write_text(_git(repo, "diff"))
        _git(repo, "reset", "-q", "--hard")
        _git(repo, "clean", "-qfd")
    return repo


def stats_case(root: Path) -> Job:
    """`mean` divides by one too many: `test_mean` fails, the hidden `test_three` too."""
    files = {
        "stats/__init__.py": "",
        "stats/core.py": STATS_BROKEN,
        "stats/text.py": SLUG_FIXED,
        "tests/test_stats.py": TEST,
    }
    repo = _make(root, files, {"stats/core.py": STATS_FIXED}, {"tests/test_hidden.py": HIDDEN_TEST})
    return _job("stats-mean", repo, root)


def slug_case(root: Path) -> Job:
    """`slug` joins with `_` instead of `-`."""
    files = {
        "stats/__init__.py": "",
        "stats/core.py": STATS_FIXED,
        "stats/text.py": SLUG_BROKEN,
        "tests/test_stats.py": SLUG_TEST,
    }
    repo = _make(root, files, {"stats/text.py": SLUG_FIXED}, {"tests/test_hidden.py": SLUG_HIDDEN})
    return _job("text-slug", repo, root)


def _job(case_id: str, repo: Path, root: Path) -> Job:
    return Job(
        id=case_id,
        family="regression",
        ecosystem="python",
        repo=repo,
        env={},
        check=CHECK,
        hidden_command=HIDDEN,
        fix_patch=(root / "fix.patch").read_text(),
        hidden_patch=(root / "hidden.patch").read_text(),
    )


OLD_TEST = (
    "import unittest\n\nfrom stats.core import total\n\n\n"
    "class TotalTest(unittest.TestCase):\n"
    "    def test_total(self):\n        self.assertEquals(total([1, 2]), 3)\n"
)
NEW_TEST = OLD_TEST.replace("assertEquals", "assertEqual")
WORLD_CHECK = f"{sys.executable} -W error::DeprecationWarning -m pytest -q -p no:cacheprovider"


def world_case(root: Path) -> Job:
    """A test still calling `assertEquals` (removed in Python 3.12; an error here by -W)."""
    files = {"stats/__init__.py": "", "stats/core.py": STATS_FIXED, "tests/test_old.py": OLD_TEST}
    repo = _make(root, files, {"tests/test_old.py": NEW_TEST}, {})
    job = _job("unittest-alias", repo, root)
    return job.model_copy(
        update={"family": "world-moved", "check": f"{WORLD_CHECK} tests", "hidden_command": None}
    )
