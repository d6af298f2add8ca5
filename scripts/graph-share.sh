#!/bin/bash
# netsiftd's CPU time for N graph flows on a capture played --fast, the flows
# sharing a prefix or not (docs/daemon.md, "Graph flows", has the figures):
#
#   scripts/graph-share.sh MODE N TRACE.pcap
#
# MODE shared:      (device) -> (pcap,"ip") -> (sampler,1,4) -> (pcap,"tcp port P")
#      independent: the same, the first filter spelled differently per flow
#      filter:      plain flows "ip and tcp port P" (no graph)
#      fplshared:   (device) -> (fpl, a 64-step loop over the first bytes) -> (pcap,"tcp port P")
#      fplindep:    the same, the FPL program differing per flow
# Each flow is a `netsift flow` writing to /dev/null; the daemon's utime+stime
# is read from /proc once the source has played the whole file. Binaries from
# target/release (B=DIR to change).
set -e
mode=$1; n=$2; trace=$3
B=${B:-target/release}
total=$("$B/netsift" -r "$trace" --count 2>/dev/null | awk '{print $1}')
T=$(mktemp -d)
"$B/netsiftd" --socket "$T/s" --file "trace=$trace" --fast --wait-flows "$n" --ibuf-entries 65536 2>"$T/log" &
dpid=$!
sleep 0.3
ports=(22 80 143 25 110 21 443 53)
pids=()
for i in $(seq 0 $((n - 1))); do
  if [ "$mode" = shared ]; then first='ip'; else first="ip or ether proto 3$i"; fi
  g="(device,trace) -> (pcap,\"$first\") -> (sampler,1,4) -> (pcap,\"tcp port ${ports[$i]}\")"
  if [ "$mode" = fplshared ]; then k=0; else k=$i; fi
  fpl="R[2] = 0; FOR (R[1] = 0; R[1] < 64; R[1]++) IF (R[1] < 60) THEN R[2] = R[2] + PKT.B[R[1]]; FI ROF RETURN R[2] != $((999 + k));"
  case $mode in fpl*) g="(device,trace) -> (fpl,\"$fpl\") -> (pcap,\"tcp port ${ports[$i]}\")" ;; esac
  if [ "$mode" = filter ]; then
    "$B/netsift" flow --socket "$T/s" -i trace -w /dev/null "ip and tcp port ${ports[$i]}" 2>"$T/c$i" &
  else
    "$B/netsift" flow --socket "$T/s" -i trace --graph "$g" -w /dev/null 2>"$T/c$i" &
  fi
  pids+=($!)
done
until "$B/netsift" flow --socket "$T/s" --daemon-stats 2>/dev/null | grep -q " $total packets"; do sleep 0.2; done
read -r ut st <<<"$(awk '{print $14, $15}' "/proc/$dpid/stat")"
kill -INT "${pids[@]}"
wait "${pids[@]}" 2>/dev/null || true
kill "$dpid"
wait "$dpid" 2>/dev/null || true
hz=$(getconf CLK_TCK)
echo "$mode n=$n: netsiftd $(( (ut + st) * 1000 / hz )) ms of CPU for $total packets"
rm -rf "$T"
