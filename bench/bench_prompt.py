"""Measure the first-attempt prompt against a naive prompt over `bench/corpus/`.

Each case is a folder with `log.txt` or `log.txt.gz` (a failing check's output), `check.txt` and
`repo/`. The naive prompt is the last 200 KB of the log plus every repository file the log names.
fixbot's prompt is the system and user messages of attempt 1, built exactly as the engine and the
fixer build them (`fixbot.logs.digest.from_facts` over the condensed log and the whole log's facts,
then `ModelFixer._opening`). Tokens are counted with `litellm.token_counter` for gpt-4o (tiktoken
o200k).

A case passes when fixbot's prompt is at most a quarter of the naive one or under 16,000
characters, and keeps every key line: the summary lines, one failing test id and one repository
`file:line` when the log has them, and every error line (`fixbot.logs.condense.error_lines`) up to
repetition: lines that differ only in a test id, a quoted value, a number or a line number have
one shape (`shape`), and each shape must be in the prompt at least once.

Run: .venv/bin/python bench/bench_prompt.py
"""

from __future__ import annotations

import gzip
import io
import os
import sys
from pathlib import Path

from fixbot.agent.fixer import ModelFixer
from fixbot.agent.protocols import registry
from fixbot.agent.runtime import Runtime
from fixbot.core.failure import CheckResult
from fixbot.core.models import FixContext
from fixbot.core.settings import Settings
from fixbot.logs.condense import condense_stream, condense_text, error_lines
from fixbot.logs.digest import from_facts
from fixbot.logs.evidence import MAX_SHOWN
from fixbot.logs.facts import LogFacts, collect_stream, shape
from fixbot.logs.signature import parse_locations
from fixbot.security.redact import Redactor

CORPUS = Path(__file__).resolve().parent / "corpus"
NAIVE_LOG_BYTES = 200_000
SMALL_PROMPT_CHARS = 16_000


def read_log(case: Path) -> str:
    """The case's log, from `log.txt` or `log.txt.gz`."""
    plain = case / "log.txt"
    if plain.is_file():
        return plain.read_text()
    return gzip.decompress((case / "log.txt.gz").read_bytes()).decode()


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
    data = log.encode()
    result = CheckResult(
        command="bench",
        exit_code=1,
        duration_s=0,
        log_path=case / "log.txt",
        output_bytes=len(data),
    )
    facts = LogFacts()
    condense_stream(io.BytesIO(data), max_bytes=0, on_diagnostic=facts.add_diagnostic)
    collect_stream(io.BytesIO(data), facts)
    failure = from_facts(result, condense_text(log), facts, repo)
    check = (case / "check.txt").read_text().strip()
    settings = Settings(check=check, model="openai/bench", edit_protocol="tools")
    ctx = FixContext(repo=repo, attempt=1, max_attempts=5, failure=failure, start_sha="")
    fixer = ModelFixer(Runtime(settings, Redactor.from_env({})))
    messages = fixer._opening(ctx, 6_000, registry.get("tools"))
    return "\n".join(m["content"] for m in messages)


def missing_key_lines(log: str, prompt: str, repo: Path) -> list[str]:
    """The key lines of `log` that `prompt` lacks (see the module doc)."""
    facts = collect_stream(io.BytesIO(log.encode()))
    missing = [line for line in facts.summary if line.strip() not in prompt]
    tests = facts.failing_tests()
    if tests and not any(test.rsplit("::", 1)[-1].rsplit(".", 1)[-1] in prompt for test in tests):
        missing.append("a failing test id")
    located = parse_locations(log, repo)
    if located and not any(
        f"{loc.path}:{loc.line}" in prompt or f'{loc.path}", line {loc.line}' in prompt
        for loc in located
    ):
        missing.append("a file:line")
    kept = {shape(line) for line in prompt.splitlines()}
    if facts.groups:  # many failures: the error lines of the distinct failures shown in full
        shown = list(facts.groups.values())[:MAX_SHOWN]
        lines = [line for group in shown for line in error_lines(group.text)]
    else:
        lines = error_lines(log)
    shapes = {shape(line): line for line in lines}
    return missing + [line for key, line in shapes.items() if key not in kept]


def main() -> int:
    rows, failures = [], 0
    cases = [
        p for p in CORPUS.iterdir() if (p / "log.txt").is_file() or (p / "log.txt.gz").is_file()
    ]
    for case in sorted(cases):
        log = read_log(case)
        prompt = fixbot_prompt(case, log)
        naive, ours = count(naive_prompt(log, case / "repo")), count(prompt)
        missing = missing_key_lines(log, prompt, case / "repo")
        small = ours * 4 <= naive or len(prompt) < SMALL_PROMPT_CHARS
        ok = small and not missing
        failures += not ok
        shapes = len({shape(line) for line in error_lines(log)})
        cells = [case.name, f"{len(log.encode()):,}", naive, ours, f"{ours / naive:.1%}"]
        cells += [f"{len(prompt):,}", f"{len(error_lines(log))} / {shapes}", len(missing)]
        rows.append("| " + " | ".join(map(str, cells)) + f" | {'yes' if ok else 'NO'} |")
        for line in missing:
            print(f"{case.name}: key line missing: {line!r}", file=sys.stderr)
    print(
        "| case | log bytes | naive tokens | fixbot tokens | ratio | fixbot chars"
        " | error lines / shapes | missing | pass |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    print("\n".join(rows))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
