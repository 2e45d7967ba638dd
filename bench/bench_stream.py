"""Streaming: what an edit's answer needs, and what streaming costs a fast model.

    .venv/bin/python bench/bench_stream.py --sizes
    .venv/bin/python bench/bench_stream.py --overhead --calls 200

`--sizes`: every reference fix of the bench corpus (bench/corpus/, `fixbot.bench.corpus`)
written as the answer each edit protocol asks for, one edit per hunk with its context lines:
`text`, SEARCH/REPLACE blocks with DIAGNOSIS and SUMMARY lines; `tools`, the
`replace_in_file` calls' arguments and `finish`. Tokens are litellm's count (`token_counter`,
OpenAI's o200k tokenizer for `gpt-4o`). Prints the distribution and the longest periodic tail
found anywhere in an answer (`fixbot.agent.stream.repeating`), which must be none.

`--overhead`: the same scripted replies from the fake model server (tests/fakes/model_server.py,
litellm's real HTTP path; a ~16,000-character prompt; replies alternately a text answer and a
`replace_in_file` call of a corpus fix, their pieces sent at once or `--pace` seconds apart, a
plain reply sent after as long as its pieces would take) asked for as fixbot asks now
(`LLM._call`: streamed, assembled, watched by the detector, in its deadline thread) and as it
asked before (a plain `litellm.completion` in the same deadline thread, read by
`fixbot.agent.reply.reply_of`), interleaved; the median wall time of each.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fixbot.agent import stream
from fixbot.bench.corpus import load_corpus


def hunks(patch: str) -> list[tuple[str, str, str]]:
    """(path, old text, new text) of each hunk of a unified diff."""
    found: list[tuple[str, str, str]] = []
    path, old, new = "", [], []  # type: ignore[var-annotated]
    inside = False

    def flush() -> None:
        if inside and (old or new):
            found.append((path, "".join(old), "".join(new)))

    for line in patch.splitlines(keepends=True):
        if line.startswith("+++ "):
            flush()
            inside, old, new = False, [], []
            path = line[4:].strip().removeprefix("b/")
        elif line.startswith("@@"):
            flush()
            inside, old, new = True, [], []
        elif inside and line.startswith((" ", "-", "+")):
            body = line[1:]
            if line[0] in " -":
                old.append(body)
            if line[0] in " +":
                new.append(body)
    flush()
    return found


def text_answer(parts: list[tuple[str, str, str]]) -> str:
    blocks = [f"{p}\n<<<<<<< SEARCH\n{o}=======\n{n}>>>>>>> REPLACE\n" for p, o, n in parts]
    return (
        "\n".join(blocks)
        + "\nDIAGNOSIS: the function returned the wrong value for the edge case the test checks."
        + "\nSUMMARY: fix the edge case\n"
    )


def tools_answer(parts: list[tuple[str, str, str]]) -> str:
    calls = [json.dumps({"path": p, "old": o, "new": n}) for p, o, n in parts]
    finish = {"summary": "fix the edge case", "diagnosis": "the function returned the wrong value"}
    return "".join(calls) + json.dumps(finish)


def longest_periodic(text: str) -> int:
    """The longest run of `text` that is one unit of 1..MAX_PERIOD characters repeated
    at least `REPEAT_TIMES` times (0 when none)."""
    best = 0
    for k in range(1, stream.MAX_PERIOD + 1):
        run = 0
        for i in range(k, len(text)):
            run = run + 1 if text[i] == text[i - k] else 0
            if run + k >= stream.REPEAT_TIMES * k:
                best = max(best, run + k)
    return best


def sizes() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from fixbot.agent.llm import litellm_module

    litellm = litellm_module()
    rows: dict[str, list[int]] = {"text": [], "tools": []}
    worst = {"text": 0, "tools": 0}
    for case in load_corpus():
        parts = hunks(case.fix.patch)
        for name, answer in (("text", text_answer(parts)), ("tools", tools_answer(parts))):
            rows[name].append(int(litellm.token_counter(model="gpt-4o", text=answer)))
            worst[name] = max(worst[name], longest_periodic(answer))
    for name, counts in rows.items():
        counts.sort()
        p90 = counts[int(0.9 * (len(counts) - 1))]
        print(
            f"{name}: {len(counts)} answers, tokens median {statistics.median(counts):.0f}, "
            f"p90 {p90}, max {counts[-1]}; longest periodic run {worst[name]} chars"
        )


def overhead(calls: int, pace: float) -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    from fixbot.agent.llm import LLM, litellm_module
    from fixbot.agent.reply import reply_of
    from fixbot.agent.waiting import within
    from fixbot.core.budget import Deadline
    from fixbot.security.redact import Redactor
    from tests.fakes.model_server import text, tool_calls

    litellm = litellm_module()
    answer = text_answer(hunks(load_corpus()[0].fix.patch))
    reply_text = text(answer)
    reply_tools = tool_calls(("replace_in_file", {"path": "a.py", "old": answer, "new": answer}))
    messages = [{"role": "user", "content": "fix it " * 2000}]
    timing: dict[str, list[float]] = {"plain": [], "streamed": []}
    import subprocess
    import tempfile

    items = [reply_tools if index % 2 == 0 else reply_text for index in range(calls)]
    with tempfile.TemporaryDirectory() as tmp:
        script, port_file = Path(tmp) / "script.json", Path(tmp) / "port"
        script.write_text(json.dumps([item for item in items for _ in (0, 1)]))
        # the server in a process of its own, as a provider is: no share of this one's GIL
        server = subprocess.Popen(
            [
                *(sys.executable, "-m", "tests.fakes.model_server", "--script", str(script)),
                *("--port-file", str(port_file), "--pace", str(pace)),
            ],
            cwd=Path(__file__).resolve().parents[1],
        )
        try:
            while not port_file.exists():
                time.sleep(0.1)
            url = f"http://127.0.0.1:{port_file.read_text()}/v1"
            llm = LLM(["openai/fake"], Redactor([]), url, deadline=Deadline.start(None))
            for _ in items:
                started = time.perf_counter()

                def plain() -> object:
                    return litellm.completion(
                        model="openai/fake",
                        messages=messages,
                        api_base=url,
                        max_tokens=4096,
                        num_retries=0,
                        max_retries=0,
                        timeout=60,
                    )

                reply_of(litellm, "openai/fake", within(61, plain, TimeoutError), llm.notes)
                timing["plain"].append(time.perf_counter() - started)
                started = time.perf_counter()
                llm._call("openai/fake", messages, None)
                timing["streamed"].append(time.perf_counter() - started)
        finally:
            server.terminate()
            server.wait()
    plain, streamed = (statistics.median(timing[k]) * 1000 for k in ("plain", "streamed"))
    pieces = len(answer) // 4
    print(
        f"pace {pace * 1000:g} ms a piece, {calls} calls each, replies of ~{pieces} pieces: "
        f"plain median {plain:.1f} ms, "
        f"streamed (fixbot's LLM.complete) median {streamed:.1f} ms, "
        f"overhead {streamed - plain:+.1f} ms ({(streamed - plain) / plain:+.1%})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", action="store_true")
    parser.add_argument("--overhead", action="store_true")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument(
        "--pace",
        type=float,
        action="append",
        help="seconds per piece as the fake model generates it (repeatable; default 0 and "
        "0.01: at once, and 100 tokens/s as a fast hosted model streams)",
    )
    args = parser.parse_args()
    if args.sizes:
        sizes()
    if args.overhead:
        for pace in args.pace or [0.0, 0.01]:
            overhead(args.calls, pace)


if __name__ == "__main__":
    main()
