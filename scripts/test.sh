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
# Everything the tests print also goes to a log, so that the end of the output (all
# a CI summary may show) names what failed, however long the run above it was.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
logged() { "$@" 2>&1 | tee -a "$log"; }
logged cargo test --workspace --release --no-fail-fast --exclude netsift-conformance --exclude netsift || status=1
# The differential and end-to-end tests print what they compared (expressions,
# captures, packets, mismatches): show it.
logged cargo test --release --no-fail-fast -p netsift-conformance -p netsift -- --nocapture || status=1
# The engine's unsafe code under Miri, where a nightly toolchain is installed.
logged scripts/miri.sh || status=1
# Each fuzz target for a few seconds, where nightly and cargo-fuzz are installed (it
# prints that it skipped otherwise): a smoke test of the targets, not a campaign.
logged env FUZZ_OPTIONAL=1 scripts/fuzz.sh "${NETSIFT_FUZZ_SECONDS:-5}" || status=1
if [ "$status" -ne 0 ]; then
    echo "== what failed =="
    # Each failing test's name, the first lines of what it printed, and cargo's
    # "to rerun pass ..." line for its test binary.
    awk '/^test .* \.\.\. FAILED$/ || /^error: test failed/ || /^error: [0-9]+ targets? failed/ || /^fuzz: [^ ]+: FAILED/ { print; next }
         /^---- .* stdout ----$/ { n = 8 }
         n > 0 { print; n-- }' "$log"
fi
exit $status
