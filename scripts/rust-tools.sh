#!/usr/bin/env bash
# Install a Rust tool chain for the bench corpus's rust cases (tests/bench/test_run_corpus.py:
# `cargo test` on crates from Debian's archive) when no cargo every account can run is on PATH
# (one in this account's home, rustup's ~/.cargo/bin, serves it alone, not the ordinary user
# of .ci/as-user) and this machine can: running as root with apt-get, Debian's cargo (with its
# rustc). Elsewhere it says what is missing and returns 0: those cases then skip with "no Rust
# tool chain", or fail under CI=true.
set -euo pipefail
for found in $(type -ap cargo); do
  case "$found" in
    "$HOME"/*) ;;
    *) exit 0 ;;
  esac
done
if [ "$EUID" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  command -v cargo >/dev/null 2>&1 && exit 0
  echo "rust-tools: cargo missing (install Debian's cargo as root, or rustup, to run the rust" \
    "cases of tests/bench/test_run_corpus.py)" >&2
  exit 0
fi
echo "rust-tools: installing cargo" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq cargo >&2
