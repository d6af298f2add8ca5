#!/usr/bin/env bash
# Builds the cargo-fuzz targets of fuzz/ and runs each for SECONDS (default 60), one
# after another, one libFuzzer job at a time, at low priority (nice 10): the machine
# is shared. Usage:
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     # default: every target
#   FUZZ_RUNS=10000000 scripts/fuzz.sh 0 images   # a run-count bound instead of time
#
# Corpora live in fuzz/corpus/<target> (not committed). The compile target's corpus
# is seeded at run time with the first lines of ../shared/corpus/filters/
# accept-EN10MB.txt when that file exists, plus the small hand-written set in
# fuzz/seeds/compile; compile_links's with 4 lines of every accept-<LINKTYPE>.txt
# there, each after its link type's name. For each target it prints the executions, exec/s and libFuzzer's
# final coverage line. A crash, a timeout (FUZZ_TIMEOUT seconds for one input,
# default 10) or an out-of-memory stops it with a nonzero exit status and prints the
# artifact under fuzz/artifacts/<target>/ to reproduce with
#   cargo +nightly fuzz run -s none <target> <artifact>
#
# FUZZ_SANITIZER picks cargo-fuzz's sanitizer: `none` by default (the targets run
# 4-20 times faster; every crate but the engine is safe Rust, and overflow checks and
# debug assertions stay on), `address` to check the engine's unsafe code too.
#
# FUZZ_LOG_DIR=DIR keeps each target's libFuzzer log there as DIR/<target>.log.
#
# Needs a nightly toolchain and cargo-fuzz; without them it says so and exits 0 when
# FUZZ_OPTIONAL=1 (as scripts/test.sh calls it), else 1.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(compile compile_links capture images follow follower daemon graph fpl fpl_ebpf print)

skip() {
    echo "fuzz: skipped: $1"
    if [ "${FUZZ_OPTIONAL:-0}" = 1 ]; then exit 0; else exit 1; fi
}

command -v rustup >/dev/null 2>&1 || skip "rustup is not installed (nightly needed)"
rustup toolchain list 2>/dev/null | grep "^nightly" >/dev/null || skip "no nightly toolchain"
command -v cargo-fuzz >/dev/null 2>&1 || skip "cargo-fuzz is not installed (scripts/setup.sh installs it when nightly is present)"

echo "fuzz: building ($(rustup run nightly rustc --version), sanitizer ${FUZZ_SANITIZER:-none})"
# Every target at once (a failed build fails the script); cargo's per-crate lines
# are left out.
san=${FUZZ_SANITIZER:-none}
nice -n 10 cargo +nightly fuzz build -s "$san" 2>&1 | { grep -v '^ *Compiling ' || true; }

seed_compile() {
    local dir=fuzz/corpus/compile
    mkdir -p "$dir"
    cp -n fuzz/seeds/compile/* "$dir"/ 2>/dev/null || true
    local list=../shared/corpus/filters/accept-EN10MB.txt
    if [ -f "$list" ]; then
        # Each seed is the link-type byte (0: EN10MB) then the expression.
        local n=0
        while IFS= read -r line && [ $n -lt 64 ]; do
            [ -n "$line" ] || continue
            n=$((n + 1))
            printf '\0%s' "$line" >"$dir/shared-$n"
        done <"$list"
    fi
}

seed_links() {
    local dir=fuzz/corpus/compile_links
    mkdir -p "$dir"
    # Each seed is a link-type name, a newline, then an expression from that
    # link type's accept list (4 per list); the target hashes names it does not
    # handle beyond the first eight onto one it does.
    local list name n
    for list in ../shared/corpus/filters/accept-*.txt; do
        [ -f "$list" ] || continue
        name=${list##*/accept-}
        name=${name%.txt}
        n=0
        while IFS= read -r line && [ $n -lt 4 ]; do
            [ -n "$line" ] || continue
            n=$((n + 1))
            printf '%s\n%s' "$name" "$line" >"$dir/shared-$name-$n"
        done <"$list"
    done
}

status=0
summary=()
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    [ "$t" = compile ] && seed_compile
    [ "$t" = compile_links ] && seed_links
    [ -d "fuzz/seeds/$t" ] && cp -n "fuzz/seeds/$t"/* "fuzz/corpus/$t"/ 2>/dev/null || true
    log=$(mktemp)
    bound=(-max_total_time="$seconds")
    [ -n "${FUZZ_RUNS:-}" ] && bound=(-runs="$FUZZ_RUNS")
    start=$(date +%s)
    # -jobs/-workers stay at 1: one process. Leak checking is off because libpcap
    # keeps what it allocates for name look-ups (compile target) for the process.
    if nice -n 10 cargo +nightly fuzz run -s "$san" "$t" "fuzz/corpus/$t" -- \
        "${bound[@]}" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
        -detect_leaks=0 -print_final_stats=1 \
        -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1; then
        result=ok
    else
        result=FAILED
        status=1
    fi
    elapsed=$(($(date +%s) - start))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    corpus=$(find "fuzz/corpus/$t" -type f | wc -l)
    line="$t: $result, ${runs:-?} executions in ${elapsed}s (${rate:-?} exec/s), corpus $corpus files; last: ${last:-none}"
    echo "fuzz: $line"
    summary+=("$line")
    if [ $result = FAILED ]; then
        grep -E 'panicked|ERROR|SUMMARY|Test unit written|artifact' "$log" | head -n 20 || true
        art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        [ -n "$art" ] && echo "fuzz: $t: crash artifact: $art (reproduce: cargo +nightly fuzz run -s $san $t $art)"
        echo "fuzz: full log: $log"
    elif [ -n "${FUZZ_LOG_DIR:-}" ]; then
        # Kept for the record (docs/RELIABILITY.md quotes libFuzzer's final lines).
        mkdir -p "$FUZZ_LOG_DIR"
        mv "$log" "$FUZZ_LOG_DIR/$t.log"
    else
        rm -f "$log"
    fi
done
echo "fuzz: summary"
printf '  %s\n' "${summary[@]}"
exit $status
