"""A registry's archive (an sdist, an npm tarball, a zip, a Debian tarball or `.deb`) unpacked
without trusting it: tar members through tarfile's "data" filter, or its rules where Python lacks
it; zip members checked before any is written; a `.deb`'s data tarball read out of its `ar`
container first. `fixbot.bench.prepare` unpacks each case's download with it."""

from __future__ import annotations

import copy
import os
import shutil
import tarfile
import tempfile
import zipfile
from pathlib import Path


class PrepareError(RuntimeError):
    """A case could not be rebuilt; the message says which step failed and what to do."""


# `TarFile.extractall(filter=)` and `tarfile.data_filter` came in Python 3.11.4 (Python's
# docs, tarfile "Extraction filters"; PEP 706); 3.11.0-3.11.3 (Debian 12 ships 3.11.2) have
# neither, and `requires-python` allows them: there `_extract_checked` applies the same rules.
HAS_DATA_FILTER = hasattr(tarfile, "data_filter")


class UnsafeMember(tarfile.TarError):
    """A tar member the "data" filter would refuse: its name, and why."""


def _checked_member(member: tarfile.TarInfo, root: str) -> tarfile.TarInfo:
    """A copy of `member` safe to extract under `root` (a real path), or `UnsafeMember`.

    The rules of tarfile's "data" filter (CPython's Lib/tarfile.py `data_filter`), stricter
    for names: an absolute name or a `..` part is refused, not rewritten. Only files,
    folders and links; a link's target, resolved against what is already on disk, stays in
    `root`; permissions lose the set-id, sticky and group/other write bits; the owner is
    whoever extracts."""
    _check_name(member, root)
    if not (member.isreg() or member.isdir() or member.issym() or member.islnk()):
        raise UnsafeMember(f"{member.name!r}: not a file, a folder or a link (a device or a fifo)")
    if member.issym() or member.islnk():
        _check_link(member, root)
    safe = copy.copy(member)
    safe.mode = _safe_mode(member)
    safe.uid, safe.gid, safe.uname, safe.gname = os.getuid(), os.getgid(), "", ""
    return safe


def _check_name(member: tarfile.TarInfo, root: str) -> None:
    """Refuse (`UnsafeMember`) an absolute name, a `..` part, or a name that resolves outside
    `root` on disk as it is now."""
    name = member.name
    if name.startswith("/") or os.path.isabs(name) or ".." in Path(name).parts:
        raise UnsafeMember(f"{name!r}: an absolute name or one that climbs out")
    target = os.path.realpath(os.path.join(root, name))
    if os.path.commonpath([target, root]) != root:
        raise UnsafeMember(f"{name!r} would be written outside the folder")


def _check_link(member: tarfile.TarInfo, root: str) -> None:
    """Refuse (`UnsafeMember`) a link to an absolute path or one whose target resolves outside
    `root` (a symlink's relative to its folder, a hard link's to `root`)."""
    name = member.name
    if os.path.isabs(member.linkname):
        raise UnsafeMember(f"{name!r} links to the absolute {member.linkname!r}")
    base = os.path.dirname(name) if member.issym() else ""
    pointed = os.path.realpath(os.path.join(root, base, member.linkname))
    if os.path.commonpath([pointed, root]) != root:
        raise UnsafeMember(f"{name!r} links outside the folder ({member.linkname!r})")


def _safe_mode(member: tarfile.TarInfo) -> int:
    """The member's permissions without set-id, sticky and group/other write bits, readable
    and writable by the owner; folders and symlinks 0o755."""
    if member.isdir() or member.issym():
        return 0o755
    mode = member.mode & 0o755
    if not mode & 0o100:
        return (mode & ~0o111) | 0o600
    return mode | 0o600


def _extract_checked(tarred: tarfile.TarFile, dest: Path) -> None:
    """Extract `tarred` into `dest` one member at a time, each through `_checked_member`
    against the disk as the members before it left it (a symlink extracted first cannot
    carry a later member out). Raises `UnsafeMember`."""
    root = os.path.realpath(dest)
    for member in tarred.getmembers():
        tarred.extract(_checked_member(member, root), root, numeric_owner=True)


def _unzip(archive: Path, scratch: Path) -> None:
    """Extract a zip archive into `scratch`; `PrepareError` for an absolute or climbing member
    (checked for all before any is written)."""
    with zipfile.ZipFile(archive) as zipped:
        for member in zipped.namelist():
            if member.startswith("/") or ".." in Path(member).parts:
                raise PrepareError(f"{archive}: unsafe member {member!r}")
        zipped.extractall(scratch)


def _untar(archive: Path, scratch: Path) -> None:
    """Extract a tar archive into `scratch` through the "data" filter (or its rules)."""
    with tarfile.open(archive) as tarred:
        if HAS_DATA_FILTER:
            tarred.extractall(scratch, filter="data")
        else:
            _extract_checked(tarred, scratch)


AR_MAGIC = b"!<arch>\n"  # the `ar` container of a .deb: deb(5), ar(5)
AR_HEADER = 60  # name 16, mtime 12, uid 6, gid 6, mode 8, size 10, magic 2 bytes


def _deb_data(archive: Path, scratch: Path) -> Path:
    """The `data.tar.*` member of the `.deb` `archive` (deb(5): an `ar` archive holding
    `debian-binary`, `control.tar.*`, `data.tar.*`), copied into `scratch`. Raises
    `tarfile.TarError` when the file is no such archive."""
    with archive.open("rb") as deb:
        if deb.read(len(AR_MAGIC)) != AR_MAGIC:
            raise tarfile.TarError("not a Debian binary package (no ar header)")
        while header := deb.read(AR_HEADER):
            if len(header) < AR_HEADER or header[58:60] != b"`\n":
                raise tarfile.TarError("a damaged ar member header")
            name = header[:16].decode("ascii", "replace").strip().rstrip("/")
            size = int(header[48:58].decode("ascii").strip() or 0)
            if name.startswith("data.tar"):
                data = deb.read(size)  # a package's files: a few megabytes at most
                if len(data) != size:
                    raise tarfile.TarError("a truncated ar member")
                out = scratch / Path(name).name
                out.write_bytes(data)
                return out
            deb.seek(size + size % 2, os.SEEK_CUR)  # members start at even offsets
    raise tarfile.TarError("a .deb without a data.tar member")


def unpack(archive: Path, dest: Path, root: str | None = None) -> None:
    """Unpack `archive` (.tar.gz, .tgz, .tar.xz, .tar.bz2, .zip or .deb) into `dest`: the folder
    `root` of it (a path from the archive's top, "." for the top itself), or without `root` the
    archive less its single top folder.

    Tar members are filtered as `tarfile`'s "data" filter does (no absolute paths, no links
    out of `dest`, no devices; `_extract_checked` where Python lacks the filter); a `.deb`'s
    files are its data tarball's, under the same filter. Raises `PrepareError` for a damaged
    or unsafe archive, or one without the folder `root`.
    """
    with tempfile.TemporaryDirectory(dir=dest.parent if dest.parent.exists() else None) as tmp:
        scratch = Path(tmp) / "files"
        scratch.mkdir()
        try:
            if archive.suffix == ".zip":
                _unzip(archive, scratch)
            elif archive.suffix == ".deb":
                _untar(_deb_data(archive, Path(tmp)), scratch)
            else:
                _untar(archive, scratch)
        except (OSError, ValueError, tarfile.TarError, zipfile.BadZipFile) as error:
            raise PrepareError(
                f"{archive} cannot be unpacked ({error}); delete it and retry"
            ) from error
        if root is not None:
            top = (scratch / root).resolve()
            if not top.is_dir() or not top.is_relative_to(scratch.resolve()):
                raise PrepareError(f"{archive} has no folder {root!r} (its [package] root)")
        else:
            entries = list(scratch.iterdir())
            top = entries[0] if len(entries) == 1 and entries[0].is_dir() else scratch
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(top), str(dest))
