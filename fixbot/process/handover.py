"""The hand-over at the end of a run: the workspace W gets fixbot's clone F's final tree and,
where W's repository is fixbot's own user's (the CLI), its branch moves to F's commits
(`deliver`); the report and the logs it names are copied into W's state folder
(`mirror_report`, `mirror_logs`), written without following a link and never read back.

No git of fixbot's runs in W's repository: the branch is moved by the shell script
`HAND_OVER`, run through the launcher of the project's commands, with the rights the project's
code already had (`fixbot.process.worlds` has the design).
"""

from __future__ import annotations

import os
import shlex
import stat
import tempfile
from pathlib import Path

from fixbot.core.errors import GitError
from fixbot.process import git
from fixbot.process.cloning import workspace_head
from fixbot.process.launcher import Launcher
from fixbot.process.nofollow import Planted, parent, place
from fixbot.process.sync import Worlds

# The hand-over's git, run by the commands' shell in the workspace (positional parameters: the
# ref to move, the sha it must still hold, the new sha, fixbot's clone, the exclude pattern).
# Exit 3: the workspace moved meanwhile; its branch stays.
# The state folder's copy (the report, the logs it names) left out of the workspace's status:
# `$1` is the pattern, added to the repository's own info/exclude once.
EXCLUDE = (
    "set -e\n"
    'x=$(git rev-parse --git-path info/exclude) && mkdir -p "$(dirname "$x")" && '
    '{ grep -qxF -e "$1" "$x" 2>/dev/null || printf "%s\\n" "$1" >> "$x"; }\n'
)
HAND_OVER = (
    "set -e\n"
    'test "$(git symbolic-ref -q HEAD || echo HEAD)" = "$1" || exit 3\n'
    'test "$(git rev-parse -q --verify HEAD)" = "$2" || exit 3\n'
    'x=$(git rev-parse --git-path info/exclude) && mkdir -p "$(dirname "$x")" && '
    '{ grep -qxF -e "$5" "$x" 2>/dev/null || printf "%s\\n" "$5" >> "$x"; }\n'
    'git fetch --no-tags --quiet -- "$4" "+HEAD:refs/fixbot/last-run"\n'
    'git update-ref -m "fixbot: the run\'s commits" "$1" "$3" "$2"\n'
    "git read-tree HEAD\n"
)


def deliver(pair: Worlds, hand_over: Launcher | None) -> str | None:
    """Hand the run's result to the workspace: its tracked files become F's final tree and, when
    the workspace's repository belongs to fixbot's own user (the CLI), its branch moves to F's
    HEAD when it is still where the run started. Returns a note for the user, or None.

    No git of fixbot's runs in the workspace's repository: whatever its `.git/config` or hooks
    run (`core.gitProxy`, `url.*.insteadOf`, `core.fsmonitor`, a `reference-transaction`
    hook) must run with the rights the project's code already had. So the branch is moved by
    `HAND_OVER` run through `hand_over`, the launcher of the project's commands (their user,
    their PID namespace, their environment without secrets), which fetches from F. Without one
    (the commands run as another user than fixbot, `run-as`, who cannot read F) the workspace
    gets the files only and the note says how to move the branch. A workspace of another user
    (the image, sudo) gets the files only. Raises GitError and OSError."""
    folder = pair.workspace.lstat()
    if os.geteuid() == 0:  # the commands' run is over: files go to the workspace's owner
        pair.owner = (folder.st_uid, folder.st_gid)
    pair.to_workspace()
    if folder.st_uid != os.geteuid():
        return None
    try:
        start = workspace_head(pair.workspace)
    except GitError:
        return None  # the commands broke the workspace's repository: it gets the files only
    exclude = f"/{pair.state_dir.strip('/')}/"  # the report's copy
    head = git.head_sha(pair.fixbot)
    ahead = git.completed(pair.fixbot, "merge-base", "--is-ancestor", start, head)
    if head == start or ahead.returncode != 0:
        if hand_over is not None:  # no commit to hand over: the report's copy still left out
            _in_commands_world(hand_over, pair, EXCLUDE, [exclude])
        return None
    branch = git.current_branch(pair.fixbot)
    wanted = f"refs/heads/{branch}" if branch else "HEAD"
    if hand_over is None:
        return (
            f"the workspace got the fixed files; its branch was not moved (fixbot runs no git "
            f"in your repository as another user than its commands'): to take fixbot's "
            f"commits, run `git fetch {pair.fixbot} HEAD && git merge --ff-only FETCH_HEAD` "
            f"in {pair.workspace}"
        )
    words = [wanted, start, head, str(pair.fixbot), exclude]
    code, log = _in_commands_world(hand_over, pair, HAND_OVER, words)
    if code not in (0, 3):
        return f"moving the workspace's branch to fixbot's commits failed: {log.strip()}"
    return None


def _in_commands_world(
    hand_over: Launcher, pair: Worlds, script: str, words: list[str]
) -> tuple[int | None, str]:
    """Run the shell `script` with `words` in the workspace through `hand_over` (the commands'
    launcher); its exit code and the last 2,000 characters of its log."""
    command = f"sh -c {shlex.quote(script)} fixbot-hand-over {shlex.join(words)}"
    with tempfile.TemporaryDirectory(prefix="fixbot-hand-over-") as tmp:
        done = hand_over.run(command, pair.workspace, Path(tmp) / "log", 120)
        log = (Path(tmp) / "log").read_text(encoding="utf-8", errors="replace")[-2000:]
    return done.exit_code, log


MIRROR_BYTES = 200 * 1024 * 1024  # the logs copied into the workspace, at most (bytes)


def mirror_logs(pair: Worlds, state_dir: str, limit: int = MIRROR_BYTES) -> None:
    """Copy the regular files under F's `<state_dir>/attempts/` (every check, set-up and fix
    command log the report and the commit message name) to the same places in the workspace,
    like `mirror_report`: each written without following a link, none read back; files past
    `limit` bytes in all are left in F (the report's paths still name them there)."""
    top = pair.fixbot / state_dir / "attempts"
    spent = 0
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            source = Path(root) / name
            info = source.lstat()
            if not stat.S_ISREG(info.st_mode) or spent + info.st_size > limit:
                continue
            spent += info.st_size
            mirror_report(pair, state_dir, source.relative_to(pair.fixbot / state_dir).as_posix())


def mirror_report(pair: Worlds, state_dir: str, name: str = "report.md") -> None:
    """Copy F's `<state_dir>/<name>` to the same place in the workspace, where users look for
    it: written without following a link (a link the repository commits at the state folder's
    name is left alone, and nothing is written), never read back."""
    source = pair.fixbot / state_dir / name
    if not source.is_file():
        return
    rel = f"{state_dir.strip('/')}/{name}"
    try:
        with parent(pair.workspace, rel, create=False):
            pass
    except Planted:
        return
    except FileNotFoundError:
        pass
    place(pair.workspace, rel, source.read_bytes(), 0o644, pair.owner)
