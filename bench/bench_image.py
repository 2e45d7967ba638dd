"""Benchmark: fixbot's container image, its size and its cold start.

Run as root: .venv/bin/python bench/bench_image.py [--runs 5]
Builds the image (scripts/build-image.sh, cached), then:
- size: the apparent size of the image's files (`du --apparent-size`, close to what `docker
  images` shows) and their tar compressed with gzip -6 (close to what a `docker pull`
  downloads), for the whole image and for the stand-in base alone;
- cold start: a container action step (tests/fakes/image.py: root, /github/workspace owned by
  uid 1001, the fake GitHub on 127.0.0.1) whose check writes the clock: seconds from the
  container's start (just before the runtime is spawned) to the first check command, and to the
  end of the step. Each run starts a fresh container from the image (the page cache is warm).
Targets (docs/image.md): at most 450 MB, at most 5 s to the first check.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.action_env import ActionSandbox  # noqa: E402
from tests.fakes.github_server import FakeGitHub  # noqa: E402
from tests.fakes.image import (  # noqa: E402
    CACHE,
    Container,
    ContainerAction,
    buildah,
    built_image,
    image_unavailable,
)


def megabytes(path: Path) -> float:
    """Apparent size of the files under `path` in MB (10^6 bytes), hard links counted once."""
    du = ["du", "-s", "--apparent-size", "-B1", str(path)]
    out = subprocess.run(du, capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0]) / 1e6


def gzipped_megabytes(path: Path) -> float:
    """Size in MB of `tar -C path . | gzip -6`."""
    tar = subprocess.Popen(["tar", "-C", str(path), "-cf", "-", "."], stdout=subprocess.PIPE)
    gz = subprocess.run(["gzip", "-6"], stdin=tar.stdout, capture_output=True, check=True)
    tar.wait()
    return len(gz.stdout) / 1e6


def base_of(image: str) -> str:
    """The name of the base `image` was built on (buildah records it in the image's annotations)."""
    out = buildah("inspect", "--type", "image", image)
    name: str = json.loads(out)["ImageAnnotations"]["org.opencontainers.image.base.name"]
    return name


def base_rootfs(name: str) -> Path:
    """The file system of the image `name` (the stand-in base) in the cache."""
    images = json.loads((CACHE / "storage" / "vfs-images" / "images.json").read_text("utf-8"))
    layer = next(i["layer"] for i in images if name in (i["names"] or []))
    return CACHE / "storage" / "vfs" / "dir" / layer


def cold_start(runs: int) -> list[tuple[float, float]]:
    """(seconds to the first check command, seconds for the whole step) per run."""
    image = built_image()
    found = []
    with FakeGitHub() as github:
        for _ in range(runs):
            root = Path(tempfile.mkdtemp(prefix="fixbot-bench-image-"))
            box = ActionSandbox(root, github)
            sha = box.commit("main", {"app.py": "print('hi')\n"}, "initial")
            ws = box.workspace("main")
            action = ContainerAction(box, Container(image, root / "container"))
            check = "date +%s.%N > /tmp/first-check"
            started = time.time()
            run = action.run(
                "push",
                box.push_event("main", sha),
                ws,
                # A model is configured, as in a real workflow (the check passes: never called).
                {"check-command": check, "model": "openai/fake", "api-base": "http://127.0.0.1:9"},
                {"OPENAI_API_KEY": "sk-bench-0123456789abcdefghij"},
            )
            ended = time.time()
            assert run.outputs.get("outcome") == "passed", run.stdout + run.stderr
            first = float(action.container.path("/tmp/first-check").read_text())
            found.append((first - started, ended - started))
            subprocess.run(["rm", "-rf", str(root)], check=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if reason := image_unavailable():
        sys.exit(f"bench_image: {reason}")
    image = built_image()
    base = base_rootfs(base_of(image.name))
    print(f"image {image.name}")
    print(
        f"on disk: image {megabytes(image.rootfs):.0f} MB, stand-in base {megabytes(base):.0f} MB"
    )
    print(
        f"gzip -6: image {gzipped_megabytes(image.rootfs):.0f} MB, "
        f"stand-in base {gzipped_megabytes(base):.0f} MB"
    )
    times = cold_start(args.runs)
    firsts = [t[0] for t in times]
    print(
        f"to the first check: median {statistics.median(firsts):.2f} s, "
        f"min {min(firsts):.2f} s, max {max(firsts):.2f} s ({args.runs} runs)"
    )
    print(f"whole step: median {statistics.median(t[1] for t in times):.2f} s")


if __name__ == "__main__":
    main()
