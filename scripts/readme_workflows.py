"""Write the README's complete example workflows (```yaml blocks with `on:`) into a folder, so
actionlint can lint them (scripts/lint.sh). Prints how many it wrote.

Usage: .venv/bin/python scripts/readme_workflows.py FOLDER
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def workflows(markdown: str) -> list[str]:
    """The ```yaml blocks of `markdown` that are whole workflows (they have a top-level `on:`)."""
    blocks = re.findall(r"^```yaml\n(.*?)^```", markdown, re.S | re.M)
    return [block for block in blocks if re.search(r"^on:", block, re.M)]


def main(argv: list[str]) -> int:
    """Write each workflow to FOLDER/readme-N.yml."""
    folder = Path(argv[0])
    folder.mkdir(parents=True, exist_ok=True)
    found = workflows((ROOT / "README.md").read_text(encoding="utf-8"))
    for number, text in enumerate(found, 1):
        (folder / f"readme-{number}.yml").write_text(text, encoding="utf-8")
    print(len(found))
    return 0 if found else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
