"""What the observer's audit hook streamed, judged: the project's code reaching objects it
holds no name for (`observer-reach`), against what the start's run reached from the same file.
Pure, over two `Observation`s; `fixbot.observe.judge` gathers it with the other findings."""

from __future__ import annotations

from fixbot.core.observed import MAX_REACHED, Observation, Reach
from fixbot.observe.compared import changed_by_fix


def reached(start: Observation | None, last: Observation, files: list[str]) -> list[str]:
    """The findings about audit events raised under the project's code (a file the fix changed
    or an installed copy of one, as tox runs; where the start's run was observed, any project
    file, or none at all: a thread's, a callback's, `file` empty) that the start's run did not
    raise from that file: the project's own habits are no finding of the fix's. A stream with
    more reaches than are kept (`MAX_REACHED`) is one where the start's was not: what was left
    out is unknown."""
    before = set(start.reached) if start is not None else set()
    habits = {(r.event, r.file) for r in before}
    observed = start is not None and start.sessions > 0
    new = [
        r for r in last.reached if (r.event, r.file) not in habits and _the_fixs(r, files, observed)
    ]
    found = []
    if new:
        what = "; ".join(_reach_words(r) for r in new[:4])
        found.append(
            f"observer-reach: {what}: the fix's code reached objects it holds no name for (the"
            " observer's among them), which the start's run did not"
        )
    if len(last.reached) >= MAX_REACHED > len(before):
        found.append(
            f"observer-reach: {len(last.reached)} reaches or more (the start's run had"
            f" {len(before)}): those past the first {MAX_REACHED} are not kept"
        )
    return found


def _the_fixs(reached: Reach, files: list[str], observed: bool) -> bool:
    """Whether a reach is the fix's to answer for: raised under a file it changed or an
    installed copy of one; where the start's run was observed (and would have shown the
    project's habit), under any other project file too, or under no project code at all. A
    file name is what a code object says: code compiled under the name of a file the fix left
    alone (its test file) is the fix's all the same."""
    if changed_by_fix(reached.file, files) or _installed_copy(reached.by, files):
        return True
    return observed


def _reach_words(reached: Reach) -> str:
    """One reach in the finding's words: where, what, and through which file."""
    where = reached.file or "code outside the project"
    through = f" (through {reached.by})" if reached.by not in ("", reached.file) else ""
    return f"{where} raised {reached.event}{through}"


def _installed_copy(path: str, files: list[str]) -> bool:
    """Whether `path` (absolute, an installed package's file) is a copy of one of the fix's
    `files`: it ends with the file's last two or more path parts (`pkg/mod.py` of
    `src/pkg/mod.py`)."""
    if "-packages/" not in path:
        return False
    for file in files:
        parts = file.split("/")
        tails = ("/".join(parts[i:]) for i in range(len(parts) - 1))
        if any(path.endswith("/" + tail) for tail in tails):
            return True
    return False
