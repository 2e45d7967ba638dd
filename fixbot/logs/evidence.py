"""The failure evidence the model reads first: structure parsed from the whole log, bounded.

`render(failure, max_bytes)` writes, in this order, each part within its share of `max_bytes`:

1. the runners' summary lines and the counts (from the whole log, `fixbot.logs.facts`);
2. the failing tests (and compiler/linter diagnostics) grouped by file, de-duplicated, the
   first `MAX_NAMES` named and the rest counted ("… and 172 more in 4 files");
3. the distinct failures: the first failure of each kind in full (its header, repository
   frames, error lines, compared values and captured output, cuts marked), with the number of
   other tests that failed the same way, the later kinds shorter;
4. when failures were grouped: the error lines of the condensed log that no failure shown has
   (one per shape, `fixbot.logs.facts.shape`) and the end of the log; otherwise the condensed log
   (error lines first, then the tail), in what is left.

Every cut says what was cut and how much; nothing is left out silently.
"""

from __future__ import annotations

import re

from fixbot.core.failure import Failure, FailureGroup
from fixbot.logs import dialects
from fixbot.logs.condense import condense_text, error_lines
from fixbot.logs.facts import render_block, shape

CUT_RE = re.compile(r"^… \d+ lines? cut$", re.MULTILINE)  # `fixbot.logs.condense.gap`
MAX_NAMES = 30  # failing tests named; the rest are counted per file
MAX_SHOWN = 3  # distinct failures shown in full
NAMES_SHARE = 0.15  # of max_bytes, for the list of failing tests
GROUPS_SHARE = 0.5  # of max_bytes, for the distinct failures
GROUP_SHARES = (0.5, 0.3, 0.2)  # of the groups' share, for the first, second, third kind
MIN_LOG_BYTES = 1_000
TAIL_LINES = 15
LOG_SHARE = 0.5  # of max_bytes, at most, for the condensed log (4,800 at the default budget)


def file_of(test: str) -> str:
    """The file (or module) a test id or diagnostic belongs to: `tests/x.py` of
    `tests/x.py::test_y`, `tests.test_x` of unittest's `tests.test_x.TestX.test_y` (each
    dialect's `file_of`, `fixbot.logs.dialects`), `src/a.ts` of the diagnostic `src/a.ts:12`;
    `""` for names without one (go, jest, cargo)."""
    found = dialects.file_of(test)
    if found is not None:
        return found
    head, sep, tail = test.rpartition(":")
    return head if sep and tail.isdigit() else ""


def by_file(names: list[str]) -> dict[str, list[str]]:
    """`names` grouped by `file_of`, files in order of first appearance, names de-duplicated."""
    grouped: dict[str, dict[str, None]] = {}
    for name in names:
        grouped.setdefault(file_of(name), {})[name] = None
    return {path: list(found) for path, found in grouped.items()}


def _short(name: str, path: str) -> str:
    if path and name.startswith(path):
        return name[len(path) :].lstrip(":.") or name
    return name


def names_text(title: str, names: list[str], total: int, max_bytes: int) -> str:
    """`title`, then one line per file: `path (N): name, name, …`; bounded to MAX_NAMES names
    (shared among the files, at least three each) and `max_bytes`, the rest counted."""
    if not names:
        return ""
    total = max(total, len(names))
    grouped = by_file(names)
    lines = [f"{title}: {total} in {len(grouped)} file{'s' if len(grouped) != 1 else ''}"]
    shown, used, files_cut = 0, len(lines[0]), 0
    per_file = max(3, MAX_NAMES // len(grouped))  # every file named, up to MAX_NAMES names
    for path, members in grouped.items():
        room = min(MAX_NAMES - shown, per_file) if used < max_bytes else 0
        picked = [_short(n, path) for n in members[: max(room, 0)]]
        files_cut += len(picked) < len(members)
        if not picked:
            continue
        line = f"  {path or '(no file)'} ({len(members)}): {', '.join(picked)}"
        lines.append(_cut(line, max_bytes - used))
        shown += len(picked)
        used += len(lines[-1]) + 1
    if total > shown:
        lines.append(_more(total - shown, files_cut))
    return "\n".join(lines)


def _cut(line: str, room: int) -> str:
    """`line` within `room` characters (at least its first 40), marked with ` …` when cut."""
    return line[: max(40, room)] + (" …" if len(line) > room else "")


def _more(count: int, files_cut: int) -> str:
    """The closing line: how many names were left out, and from how many files."""
    files = f" in {files_cut} file{'s' if files_cut != 1 else ''}" if files_cut else ""
    return f"  … and {count} more{files}"


def _group_title(index: int, group: FailureGroup) -> str:
    others = group.count - 1
    same = (
        f" — the same failure in {others} other test{'s' if others != 1 else ''}" if others else ""
    )
    listed = " (listed above)" if others else ""
    return f"[{index}] {group.test}{same}{listed}"


def groups_text(failure: Failure, max_bytes: int) -> str:
    """The distinct failures: the first MAX_SHOWN kinds in full (shorter each), the rest counted."""
    groups = failure.groups
    if not groups:
        return ""
    blocks = sum(g.count for g in groups)
    kinds = len(groups) + failure.other_groups
    parts = [
        f"Distinct failures: {kinds} kind{'s' if kinds != 1 else ''} in {blocks} failure reports"
    ]
    for index, (group, share) in enumerate(zip(groups, GROUP_SHARES, strict=False), start=1):
        title = _group_title(index, group)
        parts.append(title + "\n" + render_block(group.text, int(max_bytes * share)))
    hidden = groups[MAX_SHOWN:]
    if hidden or failure.other_groups:
        count = sum(g.count for g in hidden) + failure.other_groups
        names = ", ".join(g.test for g in hidden[:5])
        parts.append(
            f"… {len(hidden) + failure.other_groups} further kind(s) of failure not shown"
            f" ({count} failure reports{': ' + names if names else ''})"
        )
    return "\n\n".join(parts)


def summary_text(failure: Failure) -> str:
    """The summary lines and counts, from the whole log."""
    lines = []
    if failure.summary:
        lines.append("Summary lines of the whole log:")
        lines += [f"  {line.strip()}" for line in failure.summary]
    counts = failure.counts.model_dump(exclude_none=True)
    if counts:
        lines.append("Counts: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return "\n".join(lines)


def render(failure: Failure, max_bytes: int) -> str:
    """The evidence text for `failure` within about `max_bytes` characters (see the module doc).

    A log that fits whole (nothing was cut from it) and repeats no failure is given whole after
    its summary: the grouped parts would only repeat it.
    """
    log_bytes = int(max_bytes * LOG_SHARE)
    repeated = any(group.count > 1 for group in failure.groups)
    if (
        not repeated
        and len(failure.condensed.encode()) <= log_bytes
        and not CUT_RE.search(failure.condensed)
    ):
        return "\n\n".join(p for p in (summary_text(failure), failure.condensed) if p)
    parts = [summary_text(failure)]
    names_budget = int(max_bytes * NAMES_SHARE)
    parts.append(
        names_text("Failing tests", failure.failing_tests, failure.failing_total, names_budget)
    )
    parts.append(
        names_text("Diagnostics", failure.diagnostics, failure.diagnostics_total, names_budget)
    )
    parts.append(groups_text(failure, int(max_bytes * GROUPS_SHARE)))
    head = "\n\n".join(p for p in parts if p)
    room = min(log_bytes, max(MIN_LOG_BYTES, max_bytes - len(head.encode()) - 60))
    if failure.groups:
        return f"{head}\n\n{rest_of_log(failure, room)}"
    log = condense_text(failure.condensed, max_bytes=room, tail_lines=TAIL_LINES)
    return f"{head}\n\nCondensed log (error lines first, then the end of the log):\n{log}".lstrip()


def _bounded(lines: list[str], max_bytes: int, what: str) -> str:
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > max_bytes:
            kept.append(f"… {len(lines) - len(kept)} more {what} cut")
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join(kept)


def rest_of_log(failure: Failure, max_bytes: int) -> str:
    """The condensed log's error lines whose shape no failure shown has (one per shape), and
    the end of the condensed log, within `max_bytes`."""
    shown = {
        shape(line) for group in failure.groups[:MAX_SHOWN] for line in group.text.splitlines()
    }
    other: dict[str, str] = {}
    for line in error_lines(failure.condensed):
        other.setdefault(shape(line), line)
    extra = [line for key, line in other.items() if key not in shown]
    tail = failure.condensed.splitlines()[-TAIL_LINES:]
    parts = []
    if extra:
        parts.append(
            "Other error lines of the log (one of each kind):\n"
            + _bounded(extra, max_bytes // 2, "error lines")
        )
    parts.append("End of the log:\n" + _bounded(tail, max_bytes // 2, "lines of the end"))
    return "\n\n".join(parts)
