"""What a formatter check would change, in the formatter's own words.

A check such as `black --check src` fails with "would reformat src/x.py" and no line: the
lines to change are the formatter's to say. Re-run with `--diff` instead of its check flag
(through the run's launcher, like any command of the project), it prints them as a unified
diff, which goes to the first request. Formatters and flags:
- `black --check` -> `black --diff`
  (https://black.readthedocs.io/en/stable/usage_and_configuration/the_basics.html);
- `ruff format --check` -> `ruff format --diff` (https://docs.astral.sh/ruff/formatter/);
- `isort --check-only` (`--check`, `-c`) -> `isort --diff`
  (https://pycqa.github.io/isort/docs/configuration/options.html).

`python -m <formatter> ...` is read the same way. Any other check has no formatter diff.
"""

from __future__ import annotations

import shlex
import tempfile
from pathlib import Path

from fixbot.process.launcher import Launcher

CHECK_FLAGS = {
    "black": {"--check"},
    "ruff": {"--check"},
    "isort": {"--check-only", "--check", "-c"},
}


def _program(words: list[str]) -> tuple[str, int] | None:
    """(formatter, index of its first argument) of `words`, None for another command."""
    if len(words) >= 3 and words[1] == "-m" and "python" in Path(words[0]).name:
        name, first = words[2], 3
    elif words:
        name, first = Path(words[0]).name, 1
    else:
        return None
    if name == "ruff":
        return ("ruff", first + 1) if words[first : first + 1] == ["format"] else None
    return (name, first) if name in CHECK_FLAGS else None


def command(check: str) -> str | None:
    """The formatter `check` with `--diff` in place of its check flag (stderr dropped), None
    when `check` is not one formatter's check."""
    try:
        words = shlex.split(check)
    except ValueError:
        return None
    found = _program(words)
    if found is None:
        return None
    name, first = found
    flags = CHECK_FLAGS[name]
    args = words[first:]
    if not flags & set(args):
        return None
    rest = [w for w in args if w not in flags]
    return shlex.join([*words[:first], "--diff", *rest]) + " 2>/dev/null"


def formatter_diff(launcher: Launcher, repo: Path, check: str, timeout: float) -> str:
    """The diff the formatter of `check` would apply in `repo` ('' for another check or when
    it prints none)."""
    script = command(check)
    if script is None:
        return ""
    with tempfile.TemporaryDirectory(prefix="fixbot-format-") as tmp:
        log = Path(tmp) / "diff.log"
        launcher.run(script, repo, log, timeout)
        text = log.read_text(encoding="utf-8", errors="replace")
    start = text.find("--- ")
    return text[start:] if start >= 0 else ""
