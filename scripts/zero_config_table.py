"""Regenerate the inferred columns of docs/zero-config.md from tests/data/workflows/.

Each row is one vendored project: the workflow file and job `fixbot.infer.workflow` chooses,
the set-up and the check it infers. The judgement columns (right?, why) are kept as written
by hand; a new project's row starts with `?`. tests/infer/test_zero_config_table.py fails when
the page and the code disagree.

    .venv/bin/python scripts/zero_config_table.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "workflows"
PAGE = ROOT / "docs" / "zero-config.md"
ECOSYSTEMS = {
    "python": (
        "pallets/click",
        "python-attrs/attrs",
        "psf/requests",
        "encode/httpx",
        "Textualize/rich",
        "pallets/flask",
        "pydantic/pydantic",
    ),
    "node": (
        "expressjs/express",
        "chalk/chalk",
        "micromatch/picomatch",
        "sindresorhus/got",
        "axios/axios",
        "lodash/lodash",
        "fastify/fastify",
    ),
    "go": (
        "spf13/cobra",
        "spf13/pflag",
        "stretchr/testify",
        "gin-gonic/gin",
        "sirupsen/logrus",
        "urfave/cli",
        "go-chi/chi",
    ),
    "rust": (
        "rapidfuzz/strsim-rs",
        "rust-lang/regex",
        "clap-rs/clap",
        "serde-rs/serde",
        "BurntSushi/ripgrep",
        "rust-lang/log",
        "dtolnay/anyhow",
    ),
}
HEADER = "| project | ecosystem | workflow, job | set-up | check | right? | why |"
WIDTH = 160  # a cell longer than this is cut, with an ellipsis


def cell(text: str) -> str:
    """A command as one table cell: newlines as ⏎, pipes escaped, cut at `WIDTH`."""
    flat = text.replace("\n", "⏎").replace("|", "\\|")
    return flat if len(flat) <= WIDTH else flat[: WIDTH - 1] + "…"


def inferred(repo: str) -> list[str]:
    """The inferred cells of `repo`'s row: workflow and job, set-up, check."""
    sys.path.insert(0, str(ROOT))
    from fixbot.infer import workflow

    folder = DATA / repo.replace("/", "__")
    files = {f".github/workflows/{p.name}": p.read_text() for p in sorted(folder.iterdir())}
    job = workflow.choose(files)
    if job is None:
        return ["none", "", ""]
    plan = workflow.plan_for(job)
    setup = "; ".join(f"`{cell(s.command)}`" for s in plan.setup) or "none"
    check = f"`{cell(plan.check.command)}`" if plan.check else "none"
    return [f"{job.path.rsplit('/', 1)[-1]}, `{job.id}`", setup, check]


def rows(page: str) -> dict[str, list[str]]:
    """The table's rows by project: every cell after the project's."""
    out: dict[str, list[str]] = {}
    for line in page.splitlines():
        if line.startswith("| [") or line.startswith("| `"):
            cells = [c.strip() for c in _split(line)]
            out[cells[0].split("]")[0].strip("[`")] = cells[1:]
    return out


def _split(line: str) -> list[str]:
    """A table line's cells (an escaped pipe stays in its cell)."""
    parts, current, escaped = [], "", False
    for char in line.strip()[1:-1]:
        if char == "|" and not escaped:
            parts.append(current)
            current = ""
        else:
            current += char
        escaped = char == "\\"
    return [*parts, current]


def table(page: str) -> str:
    """The whole table, judgement columns kept from `page`."""
    kept = rows(page)
    lines = [HEADER, "|" + "---|" * HEADER.count(" | ") + "---|"]
    for ecosystem, repos in ECOSYSTEMS.items():
        for repo in repos:
            judged = kept.get(repo, [])[4:6] or ["?", ""]
            link = f"[{repo}](https://github.com/{repo})"
            lines.append("| " + " | ".join([link, ecosystem, *inferred(repo), *judged]) + " |")
    return "\n".join(lines)


def main() -> None:
    page = PAGE.read_text(encoding="utf-8")
    start = page.index(HEADER)
    end = page.find("\n\n", start)
    end = len(page) if end == -1 else end
    PAGE.write_text(page[:start] + table(page) + page[end:], encoding="utf-8")


if __name__ == "__main__":
    main()
