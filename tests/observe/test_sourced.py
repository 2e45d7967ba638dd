"""The observer's refusal of bytecode caches (`fixbot/observe/sourced.py`), in a real Python
process: a cache planted for a work-tree module (by an earlier process, or by the code in the
same process before the module is first imported) is never run; the source is."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from fixbot.observe import sender, sourced
from tests.observe.test_bound import FIND, run

ROOT = Path(__file__).resolve().parents[2]
CHECKS = "def verdict():\n    return 'source'\n"
# a cache for checks.py, its header checks.py's size and whole-second mtime (PEP 552): the
# import system takes it as current
PLANT = """\
import importlib.util, marshal, os, sys
path = os.path.join(sys.argv[1], "checks.py")
seen = os.stat(path)
code = compile("def verdict():\\n    return 'plant'\\n", path, "exec")
head = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
head += (int(seen.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
head += (seen.st_size & 0xFFFFFFFF).to_bytes(4, "little")
cache = importlib.util.cache_from_source(path)
os.makedirs(os.path.dirname(cache), exist_ok=True)
with open(cache, "wb") as handle:
    handle.write(head + marshal.dumps(code))
"""
INSTALL = "from fixbot.observe import sourced; sourced.install()\n"
IMPORT = "sys.path.insert(0, sys.argv[1]); import checks; print(checks.verdict())\n"


def _python(code: str, tree: Path) -> subprocess.CompletedProcess[str]:
    """`code` run by this interpreter with fixbot importable and `tree` as its argument."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return subprocess.run(
        [sys.executable, "-c", "import sys\n" + code, str(tree)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "checks.py").write_text(CHECKS, encoding="utf-8")
    return tree


@pytest.mark.slow
def test_a_cache_planted_by_an_earlier_process_is_not_run(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    assert _python(PLANT, tree).returncode == 0
    assert _python(IMPORT, tree).stdout.strip() == "plant"  # the plant works unobserved
    done = _python(INSTALL + IMPORT, tree)
    assert done.stdout.strip() == "source", done.stderr


@pytest.mark.slow
def test_a_cache_planted_in_the_same_process_is_neither_written_nor_run(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    plant = "try:\n" + "".join(f"    {line}\n" for line in PLANT.splitlines())
    plant += "except FileNotFoundError:\n    print('refused')\n"
    done = _python(INSTALL + plant + IMPORT, tree)
    assert done.stdout.split() == ["refused", "source"], done.stderr
    assert not list(tree.rglob("*.pyc"))


def test_a_cache_reached_through_a_link_is_refused(tmp_path: Path) -> None:
    """Both the path as named and as resolved must lie in a library folder: a `__pycache__`
    linked to a folder named `site-packages` (no library of this interpreter's: round 40), or a
    work-tree path, is refused."""
    folders = sourced._folders()
    outside = tmp_path / "lib" / "site-packages"
    outside.mkdir(parents=True)
    tree = _tree(tmp_path)
    (tree / "__pycache__").symlink_to(outside)
    assert not sourced.allowed(str(tree / "__pycache__" / "checks.cpython-3.pyc"), folders)
    assert not sourced.allowed(str(outside / "x.pyc"), folders)
    purelib = Path(sysconfig.get_paths()["purelib"]) / "__pycache__" / "x.pyc"
    assert sourced.allowed(str(purelib), folders)
    stdlib = Path(sysconfig.get_paths()["stdlib"]) / "__pycache__" / "json.pyc"
    assert sourced.allowed(str(stdlib), folders)
    assert not sourced.allowed(str(tree / "checks.pyc"), folders)


# the code under test finds the hook through the garbage collector and widens what it allows
WIDEN = (
    "import gc; h = [f for f in gc.get_objects() if type(f).__name__ == 'function'"
    " and f.__name__ == 'hook' and f.__code__.co_filename.endswith('_sourced.py')][0];"
    " h.__defaults__ = (('/',),) + h.__defaults__[1:]"
)


@pytest.mark.slow
def test_the_hooks_defaults_written_end_the_process(tmp_path: Path) -> None:
    """The hook is among the observer's guarded functions (`reach.install`): a write of its
    defaults ends the process (the observer's fail-closed end)."""
    done, seen = run(tmp_path, FIND.replace("TAMPER", WIDEN))
    assert done.returncode == sender.FAIL_CLOSED, done
    assert seen.sessions == 1 and seen.ended == 0, seen
    assert not (tmp_path / "after").exists()


@pytest.mark.slow
def test_a_cache_prefix_set_by_the_code_is_refused(tmp_path: Path) -> None:
    """`sys.pycache_prefix` pointed at a library folder (the interpreter's own `purelib`), the
    plant written there: every cache is refused while a prefix is set (round 40's [pycache
    prefix], which named a work-tree folder `site-packages`)."""
    tree = _tree(tmp_path)
    prefix = Path(sysconfig.get_paths()["purelib"]) / f"fixbot-test-prefix-{os.getpid()}"
    point = f"sys.pycache_prefix = {str(prefix)!r}\n"
    try:
        assert _python(point + PLANT, tree).returncode == 0
        assert _python(point + IMPORT, tree).stdout.strip() == "plant"  # works unobserved
        done = _python(INSTALL + point + IMPORT, tree)
        assert done.stdout.strip() == "source", done.stderr
    finally:
        shutil.rmtree(prefix, ignore_errors=True)
