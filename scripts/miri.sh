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
# Tree Borrows, not Stacked Borrows: crossbeam-epoch (the live sets' reclamation)
# breaks Stacked Borrows' rules inside its own code (crossbeam-rs/crossbeam#545)
# and is tested by its authors under Tree Borrows (crossbeam-rs/crossbeam#996).
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation -Zmiri-tree-borrows}"
export PROPTEST_CASES="${PROPTEST_CASES:-4}"
# The unit tests (SIMD kernels against the scalar ones, the live SET table) and the
# opcode semantics take a few minutes; `--all` adds the batch engine's and every
# executor's property tests (about 15 minutes more).
cargo +nightly miri test -p netsift-engine --lib --test semantics -- --skip live::writer::tests
# The writer's unit tests build live sets: under the same collector as below,
# whose deferred frees Miri counts as leaks; undefined behaviour still fails them.
MIRIFLAGS="$MIRIFLAGS -Zmiri-ignore-leaks" cargo +nightly miri test -p netsift-engine --lib -- live::writer::tests
# Live sets use crossbeam-epoch's default collector, a static that lives as long as
# the process and so is never freed: Miri would call it a leak. The replace test
# (a reader beside a writer that adds and deletes clauses, 50 rounds under Miri)
# checks the generations and the epoch-deferred slot reuse with Miri's weak-memory
# emulation and its thread interleavings (under a minute).
MIRIFLAGS="$MIRIFLAGS -Zmiri-ignore-leaks" cargo +nightly miri test -p netsift-engine --test live -- a_packet_both_clauses_accept_survives_every_replace
if [ "${1:-}" = "--all" ]; then
    MIRIFLAGS="$MIRIFLAGS -Zmiri-ignore-leaks" cargo +nightly miri test -p netsift-engine --test batch --test executors
fi
