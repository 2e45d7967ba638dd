"""Files the project's commands could write (a per-test report, the read-back after a fix
command) are read without following a link, bounded while read, and only when the commands'
user could read them itself (`fixbot.process.nofollow.read_at`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixbot.process import nofollow, readback, sync, worlds
from tests.fakes.reads import read_in_time
from tests.fakes.repo import make_repo

JUNIT = '<testsuite name="x" tests="1"><testcase classname="t" name="test_ok"/></testsuite>\n'
NOBODY = (65534, 65534)


def test_a_report_that_is_a_link_to_kmsg_is_refused_without_hanging(tmp_path: Path) -> None:
    """The check replaced its report with a link to `/proc/kmsg`: fixbot, as root, followed it
    and blocked on the kernel's log. It is not followed now."""
    (tmp_path / "report.xml").symlink_to("/proc/kmsg")
    assert read_in_time(tmp_path / "report.xml", NOBODY) is None


@pytest.mark.skipif(os.geteuid() != 0, reason="a root-only file needs root")
def test_a_report_naming_a_root_only_file_is_not_read_as_verdicts(tmp_path: Path) -> None:
    """A link or a hard link to a root-only XML in the report's place: its content was read as
    the check's verdicts. The link is not followed; the hard link is a file the commands' user
    could not read itself."""
    secret = tmp_path / "root-only.xml"
    secret.write_text(JUNIT)
    secret.chmod(0o600)
    folder = tmp_path / "report"
    folder.mkdir()
    (folder / "link.xml").symlink_to(secret)
    os.link(secret, folder / "hard.xml")
    assert read_in_time(folder / "link.xml", NOBODY) is None
    assert read_in_time(folder / "hard.xml", NOBODY) is None
    (folder / "own.xml").write_text(JUNIT)
    os.chown(folder / "own.xml", *NOBODY)
    assert read_in_time(folder / "own.xml", NOBODY) == {"t::test_ok": "passed"}  # theirs: read


def test_the_bound_holds_while_reading(tmp_path: Path) -> None:
    """A file larger than the bound when read (it grew after its size was looked at) raises
    instead of being read whole."""
    (tmp_path / "big").write_bytes(b"x" * 1000)
    with pytest.raises(nofollow.TooLarge):
        nofollow.read_at(tmp_path, "big", 100)
    assert nofollow.read_at(tmp_path, "big", 1000) == b"x" * 1000


def test_a_read_back_file_that_grows_after_its_stat_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read-back checked a file's size, then read it whole: a file that grew in between
    (a process still writing) came back past the bound. The bound now holds while reading."""
    workspace = make_repo(tmp_path / "w", {"app.py": "x = 1\n"})
    private = worlds.private_folder(workspace, tmp_path / "state")
    worlds.write_gitconfig(private, {})
    with worlds.entered(private):
        worlds.clone(workspace, private / worlds.REPO)
        pair = sync.Worlds(private / worlds.REPO, workspace, max_bytes=1000)
        pair.to_workspace()
        (workspace / "app.py").write_bytes(b"y" * 10)
        real = readback.stat_at

        def stat_then_grow(root: Path, rel: str) -> os.stat_result | None:
            info = real(root, rel)
            (workspace / "app.py").write_bytes(b"y" * 5000)  # grows after the size check
            return info

        monkeypatch.setattr(readback, "stat_at", stat_then_grow)
        back = pair.read_back()
    assert back.changed == []
    assert back.refused == [("app.py", "over the read-back bounds")]
    assert (pair.fixbot / "app.py").read_text() == "x = 1\n"


def test_many_files_are_read_through_shared_folders_without_following_a_link(
    tmp_path: Path,
) -> None:
    """`Folders` opens each folder of a tree once for many reads (the first comparison of a
    large workspace), keeps one folder per level open, and still follows no link on the way:
    a folder replaced by a link to another tree is `Planted`, whatever was opened before."""
    for rel in ("a/b/one", "a/b/two", "a/c/three", "top"):
        (tmp_path / "w" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "w" / rel).write_text(rel)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "secret").write_text("not the workspace's")
    (tmp_path / "w" / "link").symlink_to(tmp_path / "elsewhere")
    with nofollow.Folders(tmp_path / "w") as folders:
        for rel in ("a/b/one", "a/b/two", "a/c/three", "top"):
            assert nofollow.read_in(folders, rel) == rel.encode()
            assert len(folders.fds) == rel.count("/") + 1  # the root and the file's folders
        with pytest.raises(nofollow.Planted):
            nofollow.read_in(folders, "link/secret")
        with pytest.raises(nofollow.TooLarge):
            nofollow.read_in(folders, "a/b/one", 3)
        open_fds = list(folders.fds)
    for fd in open_fds:
        with pytest.raises(OSError):
            os.fstat(fd)  # closed at the end of the block
