"""Write fixbot/core/bashlex_tables.json: the LALR tables of the installed bashlex's grammar, as
its vendored PLY builds them, for `fixbot.core.bashgrammar` to read instead of building them at
every import. Run again when bashlex changes (tests/core/test_bashgrammar.py fails until then).

Run: .venv/bin/python scripts/gen_bashlex_tables.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fixbot.core import bashgrammar


def main() -> None:
    tables = bashgrammar.built_tables()
    bashgrammar.TABLES.write_text(json.dumps(tables, separators=(",", ":")) + "\n")
    print(f"wrote {bashgrammar.TABLES} ({len(tables['action'])} states)")


if __name__ == "__main__":
    main()
