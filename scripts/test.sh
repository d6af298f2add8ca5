#!/usr/bin/env bash
# Set up and run the whole test suite: unit and property tests, the differential
# tests against the installed libpcap on ../shared/corpus (or on generated captures
# when the corpus is absent), the malformed-file tests, the CLI-vs-tcpdump tests and
# a few seconds of each fuzz target (scripts/fuzz.sh; skipped without nightly).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
cargo build --release --quiet
status=0
cargo test --workspace --release --no-fail-fast --exclude netsift-conformance --exclude netsift || status=1
# The differential and end-to-end tests print what they compared (expressions,
# captures, packets, mismatches): show it.
cargo test --release --no-fail-fast -p netsift-conformance -p netsift -- --nocapture || status=1
# The engine's unsafe code under Miri, where a nightly toolchain is installed.
scripts/miri.sh || status=1
# Each fuzz target for a few seconds, where nightly and cargo-fuzz are installed (it
# prints that it skipped otherwise): a smoke test of the targets, not a campaign.
FUZZ_OPTIONAL=1 scripts/fuzz.sh "${NETSIFT_FUZZ_SECONDS:-5}" || status=1
exit $status
