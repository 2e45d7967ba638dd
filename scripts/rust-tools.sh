#!/usr/bin/env bash
# Install a Rust tool chain for the bench corpus's rust cases (tests/bench/test_run_corpus.py:
# `cargo test` on crates from Debian's archive) when no cargo every account can run is on PATH
# (one in this account's home, rustup's ~/.cargo/bin, serves it alone, not the ordinary user
# of .ci/as-user) and this machine can: running as root with apt-get, Debian's cargo (with its
# rustc). Elsewhere it says what is missing and returns 0: those cases then skip with "no Rust
# tool chain", or fail under CI=true.
#
# Then the Rust coverage spectrum's tools (fixbot.agent.rustcov): an llvm-profdata of the LLVM
# that the rustc first on PATH was built with (`rustc -vV`), Debian's llvm-<major>, installed as
# root with apt-get when that rustc has the profiler runtime (rustup's tool chains; Debian's
# rustc has none, and its spectrum is skipped with a note whatever is installed).
set -euo pipefail

cargo_tools() {
  for found in $(type -ap cargo); do
    case "$found" in
      "$HOME"/*) ;;
      *) return 0 ;;
    esac
  done
  if [ "$EUID" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    command -v cargo >/dev/null 2>&1 && return 0
    echo "rust-tools: cargo missing (install Debian's cargo as root, or rustup, to run the rust" \
      "cases of tests/bench/test_run_corpus.py)" >&2
    return 0
  fi
  echo "rust-tools: installing cargo" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq cargo >&2
}

llvm_tools() {
  command -v rustc >/dev/null 2>&1 || return 0
  local version major host sysroot
  version=$(rustc -vV 2>/dev/null) || return 0
  [[ $version =~ LLVM\ version:\ ([0-9]+) ]] || return 0
  major=${BASH_REMATCH[1]}
  [[ $version =~ host:\ ([^[:space:]]+) ]] || return 0
  host=${BASH_REMATCH[1]}
  sysroot=$(rustc --print sysroot 2>/dev/null) || return 0
  compgen -G "$sysroot/lib/rustlib/$host/lib/libprofiler_builtins*" >/dev/null || return 0
  command -v "llvm-profdata-$major" >/dev/null 2>&1 && return 0
  if [ "$EUID" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "rust-tools: llvm-profdata-$major missing (Debian's llvm-$major) for the Rust coverage" \
      "spectrum of rustc's LLVM $major" >&2
    return 0
  fi
  echo "rust-tools: installing llvm-$major (llvm-profdata and llvm-cov of rustc's LLVM)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq "llvm-$major" >&2 ||
    { apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 && apt-get -o DPkg::Lock::Timeout=600 install -y -qq "llvm-$major" >&2; } ||
    echo "rust-tools: Debian's archive has no llvm-$major: the Rust spectrum is skipped" >&2
}

cargo_tools
llvm_tools
