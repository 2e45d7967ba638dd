"""What a run costs: the tokens fixbot sends and receives on the demo, priced for a few models.

Runs the demo (`demo/run.py`'s repository, check and fix command) against the scripted model
server, records every request, counts its prompt tokens with `litellm.token_counter` (the
tokenizer of the model priced, as litellm ships it) and the scripted answers' completion tokens,
and prices them with `litellm.cost_per_token` (litellm's bundled price map). The fake model's
answers are short, so completion tokens are a lower bound; prompts are the real ones.

Usage: .venv/bin/python bench/bench_cost.py  (writes bench/RESULTS-cost.md)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from demo.run import CHECK, FIX, IDENTITY, SCRIPT, copy_demo  # noqa: E402
from tests.fakes.model_server import FakeModelServer  # noqa: E402

MODELS = ("gpt-4o", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.5-pro")


def run_demo() -> tuple[list[dict[str, object]], dict[str, object]]:
    """Run fixbot on a copy of the demo; return the recorded request bodies and the state."""
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer(SCRIPT) as server:
        repo = copy_demo(Path(tmp))
        env = {**os.environ, **IDENTITY, "CI": "1", "OPENAI_API_KEY": "demo-no-key"}
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        args = ["--check", CHECK, "--fix-command", FIX, "--model", "openai/scripted-demo"]
        args += ["--api-base", server.url, "--edit-protocol", "tools", "-C", str(repo)]
        subprocess.run([sys.executable, "-m", "fixbot", "run", *args], env=env, check=True)
        state = json.loads((repo / ".fixbot" / "state.json").read_text(encoding="utf-8"))
        return server.bodies(), state


def main() -> int:
    """Measure and write bench/RESULTS-cost.md."""
    import litellm

    bodies, state = run_demo()
    completions = [json.dumps(item) for item in SCRIPT]
    model_attempts = sum(
        1 for a in state["attempts"] if str(a.get("fixer") or "").startswith("model")
    )
    lines = [
        "# What a run costs (bench/bench_cost.py)",
        "",
        f"The demo run: {len(bodies)} model requests ({model_attempts} model fix attempt(s) with "
        "its tool calls, then the self-review). Prompt tokens (messages and tool schemas) are "
        "counted with each model's tokenizer as litellm ships it and priced with litellm's "
        "bundled price map; the scripted answers are short, so completion tokens are a lower "
        "bound (a real model's explanations add a few hundred per request).",
        "",
        "| model | prompt tokens | completion tokens | USD for the run |",
        "|---|---:|---:|---:|",
    ]
    for model in MODELS:
        prompt = sum(
            litellm.token_counter(model=model, messages=b["messages"], tools=b.get("tools"))
            for b in bodies
        )
        done = sum(litellm.token_counter(model=model, text=c) for c in completions)
        cost_in, cost_out = litellm.cost_per_token(
            model=model, prompt_tokens=prompt, completion_tokens=done
        )
        lines.append(f"| `{model}` | {prompt:,} | {done:,} | ${cost_in + cost_out:.4f} |")
    out = ROOT / "bench" / "RESULTS-cost.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
