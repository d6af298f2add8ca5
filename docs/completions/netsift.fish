complete -c netsift -s r -d 'Read packets from FILE (pcap or pcapng)' -r -F
complete -c netsift -s V -d 'Read the capture files named in FILE, one a line (\'-\' for standard input), one after the other, as tcpdump -V does' -r -F
complete -c netsift -s i -l interface -d 'Capture live from network interface IFACE (AF_PACKET, TPACKET_V3 ring)' -r
complete -c netsift -s s -l snapshot-length -d 'Keep at most SNAPLEN bytes of each live packet (0: 262144, tcpdump\'s default)' -r
complete -c netsift -s B -l buffer-size -d 'The capture ring\'s size in KiB (tcpdump\'s -B; 2048 by default)' -r
complete -c netsift -s Q -l direction -d 'Capture only packets received (in), sent (out), or both (inout)' -r -f -a "in\t''
out\t''
inout\t''"
complete -c netsift -l workers -d 'Capture with N worker threads, each with its own ring in one PACKET_FANOUT group (flow hash); the output is merged in time-stamp order' -r
complete -c netsift -s w -d 'Write the accepted packets to FILE as pcap, as tcpdump -w does (\'-\' for stdout)' -r -F
complete -c netsift -s C -d 'With -w: before writing a packet, start a new file if the current one holds more than SIZE million bytes (FILE, FILE1, FILE2, ...)' -r
complete -c netsift -s G -d 'With -w: start a new file every SECONDS seconds of wall-clock time; FILE is a strftime(3) format in local time' -r
complete -c netsift -s W -d 'With -C: reuse N files in a ring (FILE0 ... FILE(N-1)); with -G alone: stop after N files' -r
complete -c netsift -s c -d 'Stop after N accepted packets' -r
complete -c netsift -l time-stamp-precision -d 'Print and write time stamps in microseconds or nanoseconds' -r -f -a "micro\t''
nano\t''"
complete -c netsift -l generate -d 'Print the manual page or a shell\'s completion script, made from these flags, and exit' -r -f -a "man\t''
bash\t''
zsh\t''
fish\t''
elvish\t''
powershell\t''"
complete -c netsift -s F -d 'Read the filter expression from FILE, as tcpdump -F does: `#` starts a comment to the end of the line, and an expression on the command line is ignored' -r -F
complete -c netsift -s y -l linktype -d 'Link type for -d without -r (EN10MB, RAW, IPV4, IPV6, NULL, LOOP, LINUX_SLL, LINUX_SLL2)' -r
complete -c netsift -l follow -d 'Follow control protocols (comma-separated: ftp, sip, rtsp) and capture the data flows they announce, updating the filter while reading. EXPRESSION, if given, replaces the default base filter (the protocols\' control ports)' -r
complete -c netsift -l control -d 'With -i: let other programs edit the filter while capturing, through a Unix socket at PATH (mode 0600). Commands, one per line: `add EXPR` (an OR-ed clause; replies `ok N`), `del N`, `list`, `param N +VALUE|-VALUE` (one more or one fewer address or port in clause N\'s values, as Swift\'s add_param and del_param: no compiling). EXPRESSION, if given, is clause 0; without one nothing is captured until a clause is added' -r -F
complete -c netsift -l place -d 'Where the filter runs: `user` (in the capture ring), `kernel` (also an eBPF socket filter generated from it drops what it rejects before the ring, and where it is decisive user space does not filter again), `auto` (the kernel where the program loads, else user space, saying which), or `xdp` (an XDP program on the interface copies what it accepts to user space, before the kernel builds a socket buffer; received frames only). Without --place, as `auto` but saying nothing, as tcpdump filters in the kernel. Static filters, --control\'s clauses and --follow\'s first stage (listeners, and FTP announcements read in the kernel), on Ethernet interfaces; with -d, shows the generated program' -r -f -a "user\t''
kernel\t''
auto\t''
xdp\t''"
complete -c netsift -l follow-max-flows -d 'With --follow: at most N expectations and flows in all (default 1024; never more than the live filter can hold)' -r
complete -c netsift -l follow-max-per-session -d 'With --follow: at most N expectations and flows per control connection, SIP dialog or RTSP session (default 16)' -r
complete -c netsift -l follow-max-sessions -d 'With --follow: at most N control connections, and N dialogs and sessions, remembered (default 4096)' -r
complete -c netsift -l socket -d '`netsift flow`: the socket of netsiftd (default: $NETSIFT_SOCKET, else /run/netsift.sock)' -r -F
complete -c netsift -l graph -d '`netsift flow --graph TEXT`: the flow is a filter graph in FFPF\'s ffpf-flow syntax, e.g. \'(device,eth0) -> (pcap,"udp") -> (sampler,2,4)\', run by netsiftd (sharing every prefix with the graphs it runs), instead of an expression. With -d: print each instance and where it runs, and exit' -r
complete -c netsift -l graph-dot -d 'With --graph: write the daemon\'s running graph (the flows your rights see, their filter instances, the classes) as Graphviz DOT to FILE' -r -F
complete -c netsift -l graph-svg -d 'With --graph: write the same as SVG to FILE (needs Graphviz\'s `dot`)' -r -F
complete -c netsift -l element -d 'With --graph: deliver what element N (0-based, in written order) passes, instead of what the graph\'s last elements pass' -r
complete -c netsift -l instance -d '`netsift flow --instance ID`: deliver what the running filter instance ID of the source\'s graph passes (one a flow of your class of rights uses; `netsift flow -d --graph` lists them), instead of an expression or a graph' -r
complete -c netsift -s T -d 'Interpret the packets the filter selects as TYPE: every UDP payload is read as `aodv`, `cnfp`, `domain`, `lmp`, `pgm`, `pgm_zmtp1`, `ptp`, `radius`, `rpc` (calls as the portmapper\'s, the rest as NFS replies), `rtcp`, `rtp`, `snmp`, `someip`, `tftp`, `vat`, `vxlan` or `wb`, every TCP payload as `resp`, `domain` or `zmtp1`, whatever the ports, and IP protocol 112 as `carp` instead of VRRP' -r
complete -c netsift -s Z -l relinquish-privileges -d 'After opening the capture (and the output file), run as USER and its group. Without -Z, root runs as `tcpdump` when that user exists, as tcpdump does; `-Z root` keeps root' -r
complete -c netsift -s z -d 'With -C or -G: run COMMAND FILE on each file once it is closed (in the background, as tcpdump does; not for the last file)' -r
complete -c netsift -s E -d 'IPsec ESP decryption (tcpdump -E): refused, netsift does not decrypt ESP' -r
complete -c netsift -s M -d 'TCP-MD5 signature checking (tcpdump -M): refused, netsift does not check TCP signatures' -r
complete -c netsift -s m -d 'Load an SNMP MIB module (tcpdump -m): refused, netsift does not use libsmi' -r
complete -c netsift -s j -l time-stamp-type -d 'Time stamps of type TYPE: `host` (the kernel\'s, the only type an AF_PACKET ring gives); another known type is warned about and the host\'s used, as tcpdump does' -r
complete -c netsift -s p -l no-promiscuous-mode -d 'Don\'t put the interface into promiscuous mode'
complete -c netsift -l worker-files -d 'With --workers and -w FILE: each worker writes FILE.0, FILE.1, ... instead of one merged file'
complete -c netsift -s D -l list-interfaces -d 'List the interfaces live capture can open, and exit'
complete -c netsift -s L -l list-data-link-types -d 'List the data link types of the interface given with -i, and exit'
complete -c netsift -l immediate-mode -d 'Hand each packet over as soon as it arrives (a 1 ms ring block timeout)'
complete -c netsift -s U -l packet-buffered -d 'With -w: flush the file after each packet rather than when the buffer fills'
complete -c netsift -s d -d 'Print the compiled passes instead of filtering (netsift\'s program); -dd: the classic BPF program libpcap makes for the same filter, as a C array (tcpdump -dd); -ddd: the same in decimal, after its length (tcpdump -ddd)'
complete -c netsift -s q -d 'Quiet: tcpdump\'s shorter lines (`tcp 0`, `UDP, length 12`: less protocol detail)'
complete -c netsift -s v -d 'Verbose: tcpdump -v\'s output (IP TTL, id, offset, flags, length and options; checksums; TCP options; more of each protocol). -vv and -vvv print as -v'
complete -c netsift -s e -d 'Print the link-level header on each line (MAC addresses, EtherType, VLAN tags)'
complete -c netsift -s S -l absolute-tcp-sequence-numbers -d 'Print absolute TCP sequence numbers rather than relative ones'
complete -c netsift -s t -d 'Time stamps: -t none, -tt seconds since the epoch, -ttt time since the previous packet, -tttt date and time, -ttttt time since the first packet. Dates and times are in local time (TZ)'
complete -c netsift -l nano -d 'Short for --time-stamp-precision=nano'
complete -c netsift -l micro -d 'Short for --time-stamp-precision=micro'
complete -c netsift -s x -d 'Print each packet\'s bytes in hex after its line, without the link-level header (-xx: with it)'
complete -c netsift -s X -d 'Print each packet\'s bytes in hex and ASCII, without the link-level header (-XX: with it)'
complete -c netsift -s A -d 'Print each packet\'s bytes in ASCII, without the link-level header (-AA: with it)'
complete -c netsift -s # -l number -d 'Start each line with the packet\'s number'
complete -c netsift -s l -d 'Flush standard output after each line'
complete -c netsift -l count -d 'Print only the number of accepted packets, at the end (with -r or -V)'
complete -c netsift -l version -d 'Print the version and exit'
complete -c netsift -s n -d 'Don\'t convert addresses, ports and protocols to names (without it, names come from /etc/services, /etc/hosts, /etc/ethers and tcpdump\'s tables, never from DNS). -nn is the same, as in tcpdump 4.99'
complete -c netsift -l follow-set -d 'With --follow: track flows in a hash-table (SET) instruction instead of one pass per server; O(1) per flow for any number of flows'
complete -c netsift -l vlan-as-file -d 'With -i: filter a frame whose VLAN tag the kernel took out with the tag in place, as a capture file holds it (and as -r filters it), instead of as tcpdump -i does: without the tag, `vlan` testing the tag the kernel kept beside the frame, so that `ip` and `host` also match tagged traffic. Written frames hold their tags either way. Static filters, the clauses of --control and --follow alike'
complete -c netsift -l follow-loose -d 'With --follow: accept an FTP/SIP/RTSP announced address that is not the announcing side\'s own (conntrack\'s `loose`), and SIP/RTSP media from any host (its `sip_direct_media=0`). UNSAFE: any peer of a control connection can then point the capture at any host'
complete -c netsift -l daemon-stats -d '`netsift flow --daemon-stats`: print the daemon\'s accounting (per source: batches, packets, filter runs, distinct filters, kernel clauses, groups, flows, stored copies) and exit'
complete -c netsift -l print -d 'With -w: also print each packet\'s line on stdout, as without -w'
complete -c netsift -s K -l dont-verify-checksums -d 'Don\'t verify IP, TCP and UDP checksums. netsift prints no checksum verdict without -v; with -v it is refused, for now'
complete -c netsift -s I -l monitor-mode -d 'Put the interface in monitor mode (802.11 only): refused on interfaces that cannot, with tcpdump\'s message, and not implemented on those that can'
complete -c netsift -s J -l list-time-stamp-types -d 'List the time stamp types of the interface (-i, or the default one), and exit'
complete -c netsift -s O -l no-optimize -d 'Don\'t optimise the classic program of -dd/-ddd (tcpdump\'s -O). netsift\'s own program (-d) and what is captured do not change'
complete -c netsift -s b -d 'Print BGP AS numbers above 65535 in ASDOT notation (x.y)'
complete -c netsift -s H -d 'Detect 802.11s mesh headers: a QoS data frame\'s mesh control field is read as part of its header (and printed with -e)'
complete -c netsift -s u -d 'Print undecoded NFS handles: each file handle as its 32-bit words in hex (`fh[...]`), not the file system and file number guessed from it'
complete -c netsift -s f -d 'Print foreign IPv4 addresses numerically: on a live interface, addresses outside its IPv4 network print as numbers without -n. Refused with -r and -V, as tcpdump refuses it: a file has no local network'
complete -c netsift -s N -d 'Don\'t print the domain of host names (`host.example.org` as `host`)'
complete -c netsift -s h -l help -d 'Print help (see more with \'--help\')'
