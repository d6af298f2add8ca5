#!/usr/bin/env bash
# Installs what netsift needs on a fresh Debian machine, only what is missing:
# libpcap (headers for the test oracle, and the library), tcpdump (the reference
# the tests compare against), vsftpd and tcpreplay (real peers for the live tests
# and benchmark), and a Rust toolchain via rustup.
set -euo pipefail

need_apt=()
dpkg -s libpcap-dev >/dev/null 2>&1 || need_apt+=(libpcap-dev)
command -v tcpdump >/dev/null 2>&1 || need_apt+=(tcpdump)
command -v cc >/dev/null 2>&1 || need_apt+=(gcc)
command -v curl >/dev/null 2>&1 || need_apt+=(curl ca-certificates)
# The live tests' real peers: an FTP server, and a replayer for the live benchmark.
command -v vsftpd >/dev/null 2>&1 || [ -x /usr/sbin/vsftpd ] || need_apt+=(vsftpd)
command -v tcpreplay >/dev/null 2>&1 || need_apt+=(tcpreplay)
command -v ip >/dev/null 2>&1 || need_apt+=(iproute2)
# Wireshark's command line, which captures through netsift's extcap program.
command -v tshark >/dev/null 2>&1 || need_apt+=(tshark)
# socat, which the README's --control example talks to the control socket with.
command -v socat >/dev/null 2>&1 || need_apt+=(socat)
# Graphviz's dot, which draws a filter graph's DOT as SVG (crates/graph's tests).
command -v dot >/dev/null 2>&1 || need_apt+=(graphviz)
# net-snmp's agent and tools, the real SNMP peers of crates/print's live SNMP test.
command -v snmpd >/dev/null 2>&1 || [ -x /usr/sbin/snmpd ] || need_apt+=(snmpd)
command -v snmpget >/dev/null 2>&1 || need_apt+=(snmp)
if [ ${#need_apt[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
    if [ -x "$HOME/.cargo/bin/cargo" ]; then
        export PATH="$HOME/.cargo/bin:$PATH"
    else
        curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal >/dev/null
        export PATH="$HOME/.cargo/bin:$PATH"
    fi
fi

# cargo-fuzz, for scripts/fuzz.sh, only where a nightly toolchain is installed (the
# fuzz targets need it); elsewhere the fuzz step of scripts/test.sh says it skipped.
if command -v rustup >/dev/null 2>&1 && rustup toolchain list 2>/dev/null | grep "^nightly" >/dev/null &&
    ! command -v cargo-fuzz >/dev/null 2>&1; then
    # A failed install (no network) only means the fuzz step skips.
    cargo install cargo-fuzz --locked --quiet ||
        echo "setup: cargo-fuzz could not be installed; the fuzz targets will not run"
fi
