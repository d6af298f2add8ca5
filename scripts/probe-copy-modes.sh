#!/usr/bin/env bash
# The probes behind docs/ffpf.md, "Copy modes": why a client cannot be given
# AF_PACKET's ring (afpacket_ring.c: what an unprivileged holder of the ring's
# socket can do), and why an AF_XDP UMEM in a sealed memfd is safe to share
# read-only (xdp_umem.c: the kernel writes a frame into it, uid 65534 reads it
# and cannot write). As root; each runs in a network namespace of its own
# (`unshare -n`) with its own loopback or veth pair, so nothing leaves it.
set -euo pipefail
cd "$(dirname "$0")/probes"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -O1 -Wall -o "$out/afpacket_ring" afpacket_ring.c
gcc -O1 -Wall -o "$out/xdp_umem" xdp_umem.c
echo "== AF_PACKET ring (TPACKET_V3), handed to a client"
unshare -n sh -c "ip link set lo up; '$out/afpacket_ring'"
echo "== AF_XDP UMEM in a sealed memfd"
unshare -n sh -c "ip link set lo up; ip link add zca type veth peer name zcb; \
    ip link set zca up; ip link set zcb up; '$out/xdp_umem'"
