#!/usr/bin/env bash
# Install a Rust tool chain for the bench corpus's rust cases (tests/bench/test_run_corpus.py:
# `cargo test` on crates from Debian's archive) when none is on PATH and this machine can:
# running as root with apt-get, Debian's cargo (with its rustc). Elsewhere it says what is
# missing and returns 0: those cases then skip with "no Rust tool chain", or fail under CI=true.
set -euo pipefail
command -v cargo >/dev/null 2>&1 && exit 0
if [ "$EUID" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "rust-tools: cargo missing (install Debian's cargo as root, or rustup, to run the rust" \
    "cases of tests/bench/test_run_corpus.py)" >&2
  exit 0
fi
echo "rust-tools: installing cargo" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq cargo >&2
