#!/usr/bin/env bash
# Runs the engine's unit tests and its semantic, batch and executor tests under Miri
# (undefined behaviour in the unsafe batch loads, the SIMD kernels and the live
# set's epoch pointers), when a nightly toolchain with Miri is installed. Property
# tests run 4 cases each under Miri (`cfg!(miri)`): Miri is ~1000x slower.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly miri --version >/dev/null 2>&1; then
    if rustup toolchain list 2>/dev/null | grep -q nightly; then
        rustup component add --toolchain nightly miri rust-src >/dev/null 2>&1 || true
    fi
fi
if ! cargo +nightly miri --version >/dev/null 2>&1; then
    echo "miri: skipped (no nightly toolchain with Miri)"
    exit 0
fi
# proptest records failures next to the test file, which needs the real file system.
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation}"
export PROPTEST_CASES="${PROPTEST_CASES:-4}"
cargo +nightly miri test -p netsift-engine --lib --test semantics --test batch --test executors
