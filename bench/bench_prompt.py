"""Measure the first-attempt prompt against a naive prompt over `bench/corpus/`.

Each case is a folder with `log.txt` (a realistic failing check), `check.txt` and `repo/`.
The naive prompt is the last 200 KB of the log plus every repository file the log names.
fixbot's prompt is the system and user messages of attempt 1, built exactly as the fixer builds
them (condensed log, snippets around each `file:line`, within the context budget). Tokens are
counted with `litellm.token_counter` for gpt-4o (tiktoken o200k). A case passes when fixbot's
prompt is at most a quarter of the naive one and keeps every error line of the log (as
`fixbot.condense.error_lines` defines them).

Run: /work/venv/bin/python bench/bench_prompt.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from fixbot.agent.fixer import ModelFixer
from fixbot.agent.runtime import Runtime
from fixbot.condense import condense_text, error_lines
from fixbot.models import Classification, ErrorClass, Failure, FixContext
from fixbot.redact import Redactor
from fixbot.settings import Settings
from fixbot.signature import failure_signature, parse_counts, parse_locations

CORPUS = Path(__file__).resolve().parent / "corpus"
NAIVE_LOG_BYTES = 200_000


def count(text: str) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return int(litellm.token_counter(model="gpt-4o", text=text))


def naive_prompt(log: str, repo: Path) -> str:
    tail = log.encode()[-NAIVE_LOG_BYTES:].decode(errors="ignore")
    named = sorted({loc.path for loc in parse_locations(log, repo)})
    files = [f"--- {p}\n{(repo / p).read_text()}" for p in named if (repo / p).is_file()]
    return tail + "\n" + "\n".join(files)


def fixbot_prompt(case: Path, log: str) -> str:
    repo = case / "repo"
    condensed = condense_text(log)
    failure = Failure(
        condensed=condensed,
        signature=failure_signature(condensed),
        classification=Classification(
            error_class=ErrorClass.FIXABLE, category="bench", rule="bench"
        ),
        counts=parse_counts(condensed),
        locations=parse_locations(condensed, repo),
    )
    check = (case / "check.txt").read_text().strip()
    settings = Settings(check=check, model="openai/bench", edit_protocol="tools")
    ctx = FixContext(repo=repo, attempt=1, max_attempts=5, failure=failure, start_sha="")
    fixer = ModelFixer(Runtime(settings, Redactor.from_env({})))
    messages = fixer._opening(ctx, 6_000, "tools")
    return "\n".join(m["content"] for m in messages)


def missing_error_lines(log: str, prompt: str) -> list[str]:
    return [line for line in error_lines(log) if line.strip()[:200] not in prompt]


def main() -> int:
    rows, failures = [], 0
    for case in sorted(p for p in CORPUS.iterdir() if (p / "log.txt").is_file()):
        log = (case / "log.txt").read_text()
        naive, ours = count(naive_prompt(log, case / "repo")), count(fixbot_prompt(case, log))
        missing = missing_error_lines(log, fixbot_prompt(case, log))
        ok = ours * 4 <= naive and not missing
        failures += not ok
        cells = [case.name, naive, ours, f"{ours / naive:.1%}", len(error_lines(log)), len(missing)]
        rows.append("| " + " | ".join(map(str, cells)) + f" | {'yes' if ok else 'NO'} |")
        for line in missing:
            print(f"{case.name}: error line missing: {line!r}", file=sys.stderr)
    print("| case | naive tokens | fixbot tokens | ratio | error lines | missing | pass |")
    print("|---|---:|---:|---:|---:|---:|---|")
    print("\n".join(rows))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
