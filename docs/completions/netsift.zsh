#compdef netsift

autoload -U is-at-least

_netsift() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'(-i --interface)-r+[Read packets from FILE (pcap or pcapng)]:FILE:_files' \
'(-r -i --interface)-V+[Read the capture files named in FILE, one a line ('\''-'\'' for standard input), one after the other, as tcpdump -V does]:FILE:_files' \
'-i+[Capture live from network interface IFACE (AF_PACKET, TPACKET_V3 ring)]:IFACE:_default' \
'--interface=[Capture live from network interface IFACE (AF_PACKET, TPACKET_V3 ring)]:IFACE:_default' \
'-s+[Keep at most SNAPLEN bytes of each live packet (0\: 262144, tcpdump'\''s default)]:SNAPLEN:_default' \
'--snapshot-length=[Keep at most SNAPLEN bytes of each live packet (0\: 262144, tcpdump'\''s default)]:SNAPLEN:_default' \
'-B+[The capture ring'\''s size in KiB (tcpdump'\''s -B; 2048 by default)]:KIB:_default' \
'--buffer-size=[The capture ring'\''s size in KiB (tcpdump'\''s -B; 2048 by default)]:KIB:_default' \
'-Q+[Capture only packets received (in), sent (out), or both (inout)]:DIRECTION:(in out inout)' \
'--direction=[Capture only packets received (in), sent (out), or both (inout)]:DIRECTION:(in out inout)' \
'--workers=[Capture with N worker threads, each with its own ring in one PACKET_FANOUT group (flow hash); the output is merged in time-stamp order]:N:_default' \
'-w+[Write the accepted packets to FILE as pcap, as tcpdump -w does ('\''-'\'' for stdout)]:FILE:_files' \
'-C+[With -w\: before writing a packet, start a new file if the current one holds more than SIZE million bytes (FILE, FILE1, FILE2, ...)]:SIZE:_default' \
'-G+[With -w\: start a new file every SECONDS seconds of wall-clock time; FILE is a strftime(3) format in local time]:SECONDS:_default' \
'-W+[With -C\: reuse N files in a ring (FILE0 ... FILE(N-1)); with -G alone\: stop after N files]:N:_default' \
'-c+[Stop after N accepted packets]:N:_default' \
'--time-stamp-precision=[Print and write time stamps in microseconds or nanoseconds]:PRECISION:(micro nano)' \
'--generate=[Print the manual page or a shell'\''s completion script, made from these flags, and exit]:WHAT:(man bash zsh fish elvish powershell)' \
'-F+[Read the filter expression from FILE, as tcpdump -F does\: \`#\` starts a comment to the end of the line, and an expression on the command line is ignored]:FILE:_files' \
'-y+[Link type for -d without -r (EN10MB, RAW, IPV4, IPV6, NULL, LOOP, LINUX_SLL, LINUX_SLL2)]:LINKTYPE:_default' \
'--linktype=[Link type for -d without -r (EN10MB, RAW, IPV4, IPV6, NULL, LOOP, LINUX_SLL, LINUX_SLL2)]:LINKTYPE:_default' \
'--follow=[Follow control protocols (comma-separated\: ftp, sip, rtsp) and capture the data flows they announce, updating the filter while reading. EXPRESSION, if given, replaces the default base filter (the protocols'\'' control ports)]:PROTOCOLS:_default' \
'(--follow)--control=[With -i\: let other programs edit the filter while capturing, through a Unix socket at PATH (mode 0600). Commands, one per line\: \`add EXPR\` (an OR-ed clause; replies \`ok N\`), \`del N\`, \`list\`, \`param N +VALUE|-VALUE\` (one more or one fewer address or port in clause N'\''s values, as Swift'\''s add_param and del_param\: no compiling). EXPRESSION, if given, is clause 0; without one nothing is captured until a clause is added]:PATH:_files' \
'--place=[Where the filter runs\: \`user\` (in the capture ring), \`kernel\` (also an eBPF socket filter generated from it drops what it rejects before the ring, and where it is decisive user space does not filter again), \`auto\` (the kernel where the program loads, else user space, saying which), or \`xdp\` (an XDP program on the interface copies what it accepts to user space, before the kernel builds a socket buffer; received frames only). Without --place, as \`auto\` but saying nothing, as tcpdump filters in the kernel. Static filters, --control'\''s clauses and --follow'\''s first stage (listeners, and FTP announcements read in the kernel), on Ethernet interfaces; with -d, shows the generated program]:WHERE:(user kernel auto xdp)' \
'--follow-max-flows=[With --follow\: at most N expectations and flows in all (default 1024; never more than the live filter can hold)]:N:_default' \
'--follow-max-per-session=[With --follow\: at most N expectations and flows per control connection, SIP dialog or RTSP session (default 16)]:N:_default' \
'--follow-max-sessions=[With --follow\: at most N control connections, and N dialogs and sessions, remembered (default 4096)]:N:_default' \
'--socket=[\`netsift flow\`\: the socket of netsiftd (default\: \$NETSIFT_SOCKET, else /run/netsift.sock)]:PATH:_files' \
'--graph=[\`netsift flow --graph TEXT\`\: the flow is a filter graph in FFPF'\''s ffpf-flow syntax, e.g. '\''(device,eth0) -> (pcap,"udp") -> (sampler,2,4)'\'', run by netsiftd (sharing every prefix with the graphs it runs), instead of an expression. With -d\: print each instance and where it runs, and exit]:TEXT:_default' \
'--graph-dot=[With --graph\: write the daemon'\''s running graph (the flows your rights see, their filter instances, the classes) as Graphviz DOT to FILE]:FILE:_files' \
'--graph-svg=[With --graph\: write the same as SVG to FILE (needs Graphviz'\''s \`dot\`)]:FILE:_files' \
'--element=[With --graph\: deliver what element N (0-based, in written order) passes, instead of what the graph'\''s last elements pass]:N:_default' \
'(--graph)--instance=[\`netsift flow --instance ID\`\: deliver what the running filter instance ID of the source'\''s graph passes (one a flow of your class of rights uses; \`netsift flow -d --graph\` lists them), instead of an expression or a graph]:ID:_default' \
'-T+[Interpret the packets the filter selects as TYPE\: every UDP payload is read as \`aodv\`, \`cnfp\`, \`domain\`, \`lmp\`, \`pgm\`, \`pgm_zmtp1\`, \`ptp\`, \`radius\`, \`rpc\` (calls as the portmapper'\''s, the rest as NFS replies), \`rtcp\`, \`rtp\`, \`snmp\`, \`someip\`, \`tftp\`, \`vat\`, \`vxlan\` or \`wb\`, every TCP payload as \`resp\`, \`domain\` or \`zmtp1\`, whatever the ports, and IP protocol 112 as \`carp\` instead of VRRP]:TYPE:_default' \
'-Z+[After opening the capture (and the output file), run as USER and its group. Without -Z, root runs as \`tcpdump\` when that user exists, as tcpdump does; \`-Z root\` keeps root]:USER:_default' \
'--relinquish-privileges=[After opening the capture (and the output file), run as USER and its group. Without -Z, root runs as \`tcpdump\` when that user exists, as tcpdump does; \`-Z root\` keeps root]:USER:_default' \
'-z+[With -C or -G\: run COMMAND FILE on each file once it is closed (in the background, as tcpdump does; not for the last file)]:COMMAND:_default' \
'-E+[IPsec ESP decryption (tcpdump -E)\: refused, netsift does not decrypt ESP]:SPI@IPADDR ALGO:SECRET:_default' \
'-M+[TCP-MD5 signature checking (tcpdump -M)\: refused, netsift does not check TCP signatures]:SECRET:_default' \
'-m+[Load an SNMP MIB module (tcpdump -m)\: refused, netsift does not use libsmi]:MODULE:_default' \
'-j+[Time stamps of type TYPE\: \`host\` (the kernel'\''s, the only type an AF_PACKET ring gives); another known type is warned about and the host'\''s used, as tcpdump does]:TYPE:_default' \
'--time-stamp-type=[Time stamps of type TYPE\: \`host\` (the kernel'\''s, the only type an AF_PACKET ring gives); another known type is warned about and the host'\''s used, as tcpdump does]:TYPE:_default' \
'-p[Don'\''t put the interface into promiscuous mode]' \
'--no-promiscuous-mode[Don'\''t put the interface into promiscuous mode]' \
'--worker-files[With --workers and -w FILE\: each worker writes FILE.0, FILE.1, ... instead of one merged file]' \
'-D[List the interfaces live capture can open, and exit]' \
'--list-interfaces[List the interfaces live capture can open, and exit]' \
'-L[List the data link types of the interface given with -i, and exit]' \
'--list-data-link-types[List the data link types of the interface given with -i, and exit]' \
'--immediate-mode[Hand each packet over as soon as it arrives (a 1 ms ring block timeout)]' \
'-U[With -w\: flush the file after each packet rather than when the buffer fills]' \
'--packet-buffered[With -w\: flush the file after each packet rather than when the buffer fills]' \
'*-d[Print the compiled passes instead of filtering (netsift'\''s program); -dd\: the classic BPF program libpcap makes for the same filter, as a C array (tcpdump -dd); -ddd\: the same in decimal, after its length (tcpdump -ddd)]' \
'-q[Quiet\: tcpdump'\''s shorter lines (\`tcp 0\`, \`UDP, length 12\`\: less protocol detail)]' \
'*-v[Verbose\: tcpdump -v'\''s output (IP TTL, id, offset, flags, length and options; checksums; TCP options; more of each protocol). -vv and -vvv print as -v]' \
'-e[Print the link-level header on each line (MAC addresses, EtherType, VLAN tags)]' \
'-S[Print absolute TCP sequence numbers rather than relative ones]' \
'--absolute-tcp-sequence-numbers[Print absolute TCP sequence numbers rather than relative ones]' \
'*-t[Time stamps\: -t none, -tt seconds since the epoch, -ttt time since the previous packet, -tttt date and time, -ttttt time since the first packet. Dates and times are in local time (TZ)]' \
'--nano[Short for --time-stamp-precision=nano]' \
'--micro[Short for --time-stamp-precision=micro]' \
'*-x[Print each packet'\''s bytes in hex after its line, without the link-level header (-xx\: with it)]' \
'*-X[Print each packet'\''s bytes in hex and ASCII, without the link-level header (-XX\: with it)]' \
'*-A[Print each packet'\''s bytes in ASCII, without the link-level header (-AA\: with it)]' \
'-#[Start each line with the packet'\''s number]' \
'--number[Start each line with the packet'\''s number]' \
'-l[Flush standard output after each line]' \
'--count[Print only the number of accepted packets, at the end (with -r or -V)]' \
'--version[Print the version and exit]' \
'*-n[Don'\''t convert addresses, ports and protocols to names (without it, names come from /etc/services, /etc/hosts, /etc/ethers and tcpdump'\''s tables, never from DNS). -nn is the same, as in tcpdump 4.99]' \
'--follow-set[With --follow\: track flows in a hash-table (SET) instruction instead of one pass per server; O(1) per flow for any number of flows]' \
'--vlan-as-file[With -i\: filter a frame whose VLAN tag the kernel took out with the tag in place, as a capture file holds it (and as -r filters it), instead of as tcpdump -i does\: without the tag, \`vlan\` testing the tag the kernel kept beside the frame, so that \`ip\` and \`host\` also match tagged traffic. Written frames hold their tags either way. Static filters, the clauses of --control and --follow alike]' \
'--follow-loose[With --follow\: accept an FTP/SIP/RTSP announced address that is not the announcing side'\''s own (conntrack'\''s \`loose\`), and SIP/RTSP media from any host (its \`sip_direct_media=0\`). UNSAFE\: any peer of a control connection can then point the capture at any host]' \
'--daemon-stats[\`netsift flow --daemon-stats\`\: print the daemon'\''s accounting (per source\: batches, packets, filter runs, distinct filters, kernel clauses, groups, flows, stored copies) and exit]' \
'--print[With -w\: also print each packet'\''s line on stdout, as without -w]' \
'-K[Don'\''t verify IP, TCP and UDP checksums. netsift prints no checksum verdict without -v; with -v it is refused, for now]' \
'--dont-verify-checksums[Don'\''t verify IP, TCP and UDP checksums. netsift prints no checksum verdict without -v; with -v it is refused, for now]' \
'-I[Put the interface in monitor mode (802.11 only)\: refused on interfaces that cannot, with tcpdump'\''s message, and not implemented on those that can]' \
'--monitor-mode[Put the interface in monitor mode (802.11 only)\: refused on interfaces that cannot, with tcpdump'\''s message, and not implemented on those that can]' \
'-J[List the time stamp types of the interface (-i, or the default one), and exit]' \
'--list-time-stamp-types[List the time stamp types of the interface (-i, or the default one), and exit]' \
'-O[Don'\''t optimise the classic program of -dd/-ddd (tcpdump'\''s -O). netsift'\''s own program (-d) and what is captured do not change]' \
'--no-optimize[Don'\''t optimise the classic program of -dd/-ddd (tcpdump'\''s -O). netsift'\''s own program (-d) and what is captured do not change]' \
'-b[Print BGP AS numbers above 65535 in ASDOT notation (x.y)]' \
'-H[Detect 802.11s mesh headers\: a QoS data frame'\''s mesh control field is read as part of its header (and printed with -e)]' \
'-u[Print undecoded NFS handles\: each file handle as its 32-bit words in hex (\`fh\[...\]\`), not the file system and file number guessed from it]' \
'-f[Print foreign IPv4 addresses numerically\: on a live interface, addresses outside its IPv4 network print as numbers without -n. Refused with -r and -V, as tcpdump refuses it\: a file has no local network]' \
'-N[Don'\''t print the domain of host names (\`host.example.org\` as \`host\`)]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::expression -- The filter expression:_default' \
&& ret=0
}

(( $+functions[_netsift_commands] )) ||
_netsift_commands() {
    local commands; commands=()
    _describe -t commands 'netsift commands' commands "$@"
}

if [ "$funcstack[1]" = "_netsift" ]; then
    _netsift "$@"
else
    compdef _netsift netsift
fi
