"""Where a dev case's reference fix sits in fixbot's first request: its localization margins.

`fixbot bench --localize --part dev --requests DIR` writes each case's first request to
`DIR/<id>.txt`; this reads each of them beside its case's reference fix and prints one row a
case: localized or not (`fixbot.bench.localize`), the changed files and target lines shown,
the slack (target lines shown beyond the half needed), the rank of each changed file among the
files the request shows excerpts of, the rank of the first excerpt showing a target line among
all excerpts, the characters of the request before the first target line shown and after the
one that makes half, and how many target lines not shown lie within `NEAR` lines of a line an
excerpt shows (just outside its window). A case localized by a thin margin is the next one to
be lost on the held-out part. A held-out case is refused: its fix is never opened.

Run: .venv/bin/python bench/bench_margins.py DIR [--corpus bench/corpus]
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from unidiff import PatchSet

from fixbot.bench import localize
from fixbot.bench.corpus import Part, part_of, read_case

HEADER = re.compile(r"^--- (\S+) lines (\d+)-(\d+)")
NUMBERED = re.compile(r"^\s*(\d+)\| ")
NEAR = 5  # lines from a shown one that count as just outside an excerpt's window


@dataclass(frozen=True)
class Margin:
    """One case's row; offsets are characters of the request, ranks count from 1 (None: not
    shown)."""

    case: str
    localized: bool
    files: str
    lines: str
    slack: int
    file_ranks: list[int | None]
    excerpt_rank: int | None
    excerpts: int
    before_first: int | None
    after_half: int | None
    near: int
    chars: int


def targets(patch: str) -> dict[str, list[tuple[int, str]]]:
    """path -> (line in the broken tree, stripped text) of each target line of `patch`, as
    `localize.targets` counts them (removed lines, the line before an insertion, at least
    `MIN_LINE_CHARS`, each text once)."""
    found: dict[str, list[tuple[int, str]]] = {}
    for changed in PatchSet(patch):
        if changed.is_added_file:
            continue
        seen: set[str] = set()
        rows = found.setdefault(changed.path, [])
        for hunk in changed:
            body = list(hunk)
            for index, line in enumerate(body):
                at = line if line.is_removed else None
                if line.is_added and index > 0 and body[index - 1].is_context:
                    at = body[index - 1]
                text = at.value.strip() if at is not None else ""
                if at is not None and len(text) >= localize.MIN_LINE_CHARS and text not in seen:
                    seen.add(text)
                    rows.append((at.source_line_no or 0, text))
    return found


def excerpts(request: str) -> list[tuple[str, dict[int, int]]]:
    """The request's excerpts in order: (path, shown line -> offset of its numbered line)."""
    found: list[tuple[str, dict[int, int]]] = []
    offset = 0
    for raw in request.splitlines(keepends=True):
        header = HEADER.match(raw)
        numbered = NUMBERED.match(raw)
        if header:
            found.append((header.group(1), {}))
        elif numbered and found:
            found[-1][1].setdefault(int(numbered.group(1)), offset)
        offset += len(raw)
    return found


def margin(case: str, patch: str, request: str) -> Margin:
    """The margins of one case's first request `request` against its reference fix `patch`."""
    measured = localize.measure(patch, request)
    wanted = targets(patch)
    shown = excerpts(request)
    order = list(dict.fromkeys(path for path, _ in shown))
    lines: dict[str, dict[int, int]] = {}
    for path, numbers in shown:
        for number, offset in numbers.items():
            lines.setdefault(path, {}).setdefault(number, offset)
    offsets, near = [], 0
    for path, rows in wanted.items():
        got = lines.get(path, {})
        for number, text in rows:
            if number in got:
                offsets.append(got[number])
            elif text in request:
                offsets.append(request.index(text))
            elif got and min(abs(number - n) for n in got) <= NEAR:
                near += 1
    offsets.sort()
    need = math.ceil(localize.LINES_NEEDED * measured.lines)
    half = offsets[need - 1] if 0 < need <= len(offsets) else None
    hits = {(p, n) for p, rows in wanted.items() for n, _ in rows}
    rank = next((i for i, (p, ns) in enumerate(shown, 1) if any((p, n) in hits for n in ns)), None)
    return Margin(
        case=case,
        localized=measured.localized,
        files=f"{len(measured.files_shown)}/{len(measured.files)}",
        lines=f"{measured.lines_shown}/{measured.lines}",
        slack=measured.lines_shown - need,
        file_ranks=[order.index(p) + 1 if p in order else None for p in wanted],
        excerpt_rank=rank,
        excerpts=len(shown),
        before_first=offsets[0] if offsets else None,
        after_half=len(request) - half if half is not None else None,
        near=near,
        chars=len(request),
    )


def main(argv: list[str]) -> int:
    """Print the margins of every dev case whose first request is in the folder `argv` names."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("requests", type=Path)
    parser.add_argument("--corpus", type=Path, default=Path(__file__).parent / "corpus")
    args = parser.parse_args(argv)
    print("case | localized | files | lines | slack | file ranks | excerpt | before | after | near")
    for request in sorted(args.requests.glob("*.txt")):
        case = request.stem
        if part_of(case) is not Part.DEV:
            print(f"{case}: a held-out case, not read", file=sys.stderr)
            continue
        found = list(args.corpus.glob(f"*/{case}.toml"))
        read = read_case(found[0]) if len(found) == 1 else (None, [])
        if read[0] is None or not read[0].fix.patch:
            continue
        m = margin(case, read[0].fix.patch, request.read_text(encoding="utf-8"))
        print(
            f"{m.case} | {'yes' if m.localized else 'no'} | {m.files} | {m.lines} | {m.slack} | "
            f"{m.file_ranks} | {m.excerpt_rank}/{m.excerpts} | {m.before_first} | "
            f"{m.after_half} | {m.near}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
