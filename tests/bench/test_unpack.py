"""unpack(): a release archive is third-party data, unpacked under the same rules on every Python.

Python 3.11.4 added tarfile's "data" filter; 3.11.0-3.11.3 (Debian 12's 3.11.2) lack it and
`unpack` checks each member itself. Every case runs both ways: `filter` (only where this Python
has the filter) and `checked` (the fallback, forced), so the fallback is proven on any Python.
"""

from __future__ import annotations

import io
import platform
import stat
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from fixbot.bench import archives
from fixbot.bench.archives import PrepareError, unpack

Member = Callable[[tarfile.TarFile], None]
REG = tarfile.REGTYPE


@pytest.fixture(params=["filter", "checked"])
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How `unpack` extracts tar members here: the "data" filter, or the member-by-member check."""
    if request.param == "filter" and not hasattr(tarfile, "data_filter"):
        pytest.skip(f"Python {platform.python_version()} has no tarfile data filter")
    monkeypatch.setattr(archives, "HAS_DATA_FILTER", request.param == "filter")
    return str(request.param)


def file(name: str, data: bytes = b"x\n", mode: int = 0o644) -> Member:
    def add(tar: tarfile.TarFile) -> None:
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(data), mode
        tar.addfile(info, io.BytesIO(data))

    return add


def special(name: str, kind: bytes, linkname: str = "") -> Member:
    def add(tar: tarfile.TarFile) -> None:
        info = tarfile.TarInfo(name)
        info.type, info.linkname = kind, linkname
        if kind == tarfile.DIRTYPE:
            info.mode = 0o755
        tar.addfile(info)

    return add


def archive(tmp_path: Path, *members: Member) -> Path:
    path = tmp_path / "release-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for add in members:
            add(tar)
    return path


def test_a_sound_release_unpacks_without_its_top_folder(tmp_path: Path, way: str) -> None:
    tarred = archive(
        tmp_path,
        special("calc-1.0", tarfile.DIRTYPE),
        file("calc-1.0/calc.py", b"def add(a, b):\n    return a + b\n"),
        file("calc-1.0/run.sh", b"#!/bin/sh\n", mode=0o6777),
        special("calc-1.0/pkg", tarfile.DIRTYPE),
        special("calc-1.0/pkg/alias.py", tarfile.SYMTYPE, "../calc.py"),
        special("calc-1.0/same.py", tarfile.LNKTYPE, "calc-1.0/calc.py"),
    )
    dest = tmp_path / "out" / "repo"
    unpack(tarred, dest)
    assert (dest / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (dest / "pkg" / "alias.py").read_text() == (dest / "calc.py").read_text()
    assert (dest / "same.py").stat().st_ino == (dest / "calc.py").stat().st_ino
    # no set-id bits and no write for group or others, whatever the archive says
    assert stat.S_IMODE((dest / "run.sh").stat().st_mode) == 0o755


# (name, type, link target); "{outside}" is a folder next to the one unpacked into
UNSAFE: dict[str, list[tuple[str, bytes, str]]] = {
    "dot-dot": [("calc-1.0/calc.py", REG, ""), ("calc-1.0/../../escaped.py", REG, "")],
    "absolute": [("calc-1.0/calc.py", REG, ""), ("{outside}/escaped.py", REG, "")],
    "symlink-out-then-through-it": [
        ("calc-1.0/link", tarfile.SYMTYPE, "../../../outside"),
        ("calc-1.0/link/escaped.py", REG, ""),
    ],
    "absolute-symlink": [
        ("calc-1.0/link", tarfile.SYMTYPE, "{outside}"),
        ("calc-1.0/link/escaped.py", REG, ""),
    ],
    "hardlink-out": [("calc-1.0/hard", tarfile.LNKTYPE, "../../outside/secret")],
    "device": [("calc-1.0/null", tarfile.CHRTYPE, "")],
    "fifo": [("calc-1.0/pipe", tarfile.FIFOTYPE, "")],
}


@pytest.mark.parametrize("case", sorted(UNSAFE))
def test_an_unsafe_member_writes_nothing_outside(tmp_path: Path, way: str, case: str) -> None:
    """A member that climbs out (`..`, an absolute name, a link out and a member written
    through it), a device or a fifo: nothing lands outside `dest`, and the archive is refused
    (the filter rewrites an absolute name into `dest` instead, also safe)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("keep\n")
    members = []
    for name, kind, linkname in UNSAFE[case]:
        if kind == REG:
            members.append(file(name.format(outside=outside)))
        else:
            members.append(special(name, kind, linkname.format(outside=outside)))
    tarred = archive(tmp_path, *members)
    (tmp_path / "work").mkdir()
    try:
        unpack(tarred, tmp_path / "work" / "repo")
    except PrepareError as error:
        assert "cannot be unpacked" in str(error)
    else:
        assert (way, case) == ("filter", "absolute"), f"{case} was unpacked"
    assert sorted(p.name for p in outside.iterdir()) == ["secret"]
    assert (outside / "secret").read_text() == "keep\n"
    assert [p for p in tmp_path.rglob("escaped.py") if "work" not in p.parts] == []
