//! Tests of the FTP workload generator: determinism, ground truth, protocol
//! correctness (227 replies, checksums, sequence numbers), concurrency, the pcap
//! file as read back by netsift-pcapio and by tcpdump, and the command line.
//!
//! The packets are parsed here with a parser independent of the generator's
//! builders, so a bug in one is not hidden by the same bug in the other.

use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::Command;

use netsift_bench::{ftp_workload, Class, FtpConfig, FtpWorkload};

/// A small but complete configuration: several servers and transfers, background
/// traffic, a few seconds.
fn small() -> FtpConfig {
    FtpConfig {
        servers: 3,
        transfers: 4,
        duration_ns: 2_000_000_000,
        background_pps: 2000,
        burst_segments: 30,
        rate_pps: 15,
        seed: 7,
        ..FtpConfig::default()
    }
}

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("netsift-bench-{}-{name}", std::process::id()))
}

// ---- an independent parser --------------------------------------------------

#[derive(Debug)]
struct Ip<'a> {
    src: Ipv4Addr,
    dst: Ipv4Addr,
    proto: u8,
    header: &'a [u8],
    /// The IP payload, padding stripped.
    l4: &'a [u8],
}

#[derive(Debug)]
struct Tcp<'a> {
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    payload: &'a [u8],
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn ip(frame: &[u8]) -> Ip<'_> {
    assert!(frame.len() >= 34, "frame too short");
    assert_eq!(be16(frame, 12), 0x0800, "not IPv4");
    let h = &frame[14..];
    assert_eq!(h[0], 0x45, "IPv4 with options or wrong version");
    let total = be16(h, 2) as usize;
    assert!(total <= h.len(), "IPv4 total length beyond the frame");
    Ip {
        src: Ipv4Addr::new(h[12], h[13], h[14], h[15]),
        dst: Ipv4Addr::new(h[16], h[17], h[18], h[19]),
        proto: h[9],
        header: &h[..20],
        l4: &h[20..total],
    }
}

fn tcp<'a>(ip: &Ip<'a>) -> Option<Tcp<'a>> {
    if ip.proto != 6 {
        return None;
    }
    let t = ip.l4;
    let hlen = usize::from(t[12] >> 4) * 4;
    Some(Tcp {
        sport: be16(t, 0),
        dport: be16(t, 2),
        seq: be32(t, 4),
        ack: be32(t, 8),
        flags: t[13],
        payload: &t[hlen..],
    })
}

/// RFC 1071 sum, folded and complemented; 0 over data that includes a correct
/// checksum.
fn cksum(parts: &[&[u8]]) -> u16 {
    let mut sum: u64 = 0;
    for part in parts {
        for c in part.chunks(2) {
            let w = if c.len() == 2 {
                u16::from_be_bytes([c[0], c[1]])
            } else {
                u16::from(c[0]) << 8
            };
            sum += u64::from(w);
        }
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

fn checksums_verify(frame: &[u8]) -> bool {
    let ip = ip(frame);
    if cksum(&[ip.header]) != 0 {
        return false;
    }
    match ip.proto {
        6 | 17 => {
            let len = (ip.l4.len() as u16).to_be_bytes();
            let pseudo = [0, ip.proto, len[0], len[1]];
            cksum(&[&ip.src.octets(), &ip.dst.octets(), &pseudo, ip.l4]) == 0
        }
        1 => cksum(&[ip.l4]) == 0,
        _ => false,
    }
}

/// Parses `227 Entering Passive Mode (a,b,c,d,p1,p2)` the way an FTP client
/// does: the six numbers after the first `(`.
fn parse_227(payload: &[u8]) -> Option<(Ipv4Addr, u16)> {
    let text = std::str::from_utf8(payload).ok()?;
    let rest = text.strip_prefix("227 ")?;
    let inner = &rest[rest.find('(')? + 1..];
    let inner = &inner[..inner.find(')')?];
    let n: Vec<u8> = inner
        .split(',')
        .map(|s| s.trim().parse::<u8>())
        .collect::<Result<_, _>>()
        .ok()?;
    if n.len() != 6 {
        return None;
    }
    Some((
        Ipv4Addr::new(n[0], n[1], n[2], n[3]),
        u16::from(n[4]) << 8 | u16::from(n[5]),
    ))
}

// ---- tests ------------------------------------------------------------------

#[test]
fn same_arguments_give_identical_bytes() {
    let cfg = small();
    let a = ftp_workload(&cfg).unwrap();
    let b = ftp_workload(&cfg).unwrap();
    let pa = a.write_pcap(Vec::new()).unwrap();
    let pb = b.write_pcap(Vec::new()).unwrap();
    assert_eq!(pa, pb);
    assert_eq!(
        a.write_truth(Vec::new()).unwrap(),
        b.write_truth(Vec::new()).unwrap()
    );
    assert_eq!(a.connections, b.connections);

    let other = ftp_workload(&FtpConfig { seed: 8, ..cfg }).unwrap();
    assert_ne!(other.write_pcap(Vec::new()).unwrap(), pa);
}

#[test]
fn truth_matches_announced_tuples() {
    let w = ftp_workload(&small()).unwrap();
    assert_eq!(w.truth.len(), w.packets.len());
    assert_eq!(w.connections.len(), 12);

    // (server, port) → (transfer, index of its 227).
    let mut announced: HashMap<(Ipv4Addr, u16), (u32, usize)> = HashMap::new();
    for (k, c) in w.connections.iter().enumerate() {
        assert_eq!(c.id as usize, k);
        assert!(c.port >= 1024);
        assert_ne!(c.client_port, c.port);
        assert_ne!(c.control_port, c.port);
        let old = announced.insert((c.server, c.port), (c.id, c.announce_index));
        assert!(
            old.is_none(),
            "data port {} announced twice on {}",
            c.port,
            c.server
        );
    }
    let servers: Vec<Ipv4Addr> = w.connections.iter().map(|c| c.server).collect();

    let mut seen = [0usize; 3];
    for (i, (p, class)) in w.packets.iter().zip(&w.truth).enumerate() {
        let ip = ip(&p.data);
        let on_tuple = tcp(&ip).and_then(|t| {
            announced
                .get(&(ip.src, t.sport))
                .or_else(|| announced.get(&(ip.dst, t.dport)))
                .copied()
        });
        let expected_data = match on_tuple {
            Some((k, announce)) if announce < i => Some(k),
            _ => None,
        };
        match *class {
            Class::Data(k) => {
                seen[1] += 1;
                assert_eq!(expected_data, Some(k), "packet {i} is data of {k}");
            }
            Class::Control(k) => {
                seen[0] += 1;
                assert_eq!(expected_data, None, "control packet {i} on a data tuple");
                let t = tcp(&ip).expect("control packets are TCP");
                let c = &w.connections[k as usize];
                let fwd =
                    (ip.src, t.sport, ip.dst, t.dport) == (c.client, c.control_port, c.server, 21);
                let rev =
                    (ip.dst, t.dport, ip.src, t.sport) == (c.client, c.control_port, c.server, 21);
                assert!(
                    fwd || rev,
                    "control packet {i} not on transfer {k}'s connection"
                );
            }
            Class::Background => {
                seen[2] += 1;
                assert_eq!(expected_data, None, "background packet {i} on a data tuple");
                assert!(!servers.contains(&ip.src) && !servers.contains(&ip.dst));
                if let Some(t) = tcp(&ip) {
                    assert!(![20, 21].contains(&t.sport) && ![20, 21].contains(&t.dport));
                }
            }
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "every class occurs: {seen:?}");

    let s = w.stats();
    assert_eq!(
        (s.control, s.data, s.background),
        (seen[0], seen[1], seen[2])
    );
    let per_conn: u32 = w.connections.iter().map(|c| c.data_packets).sum();
    assert_eq!(per_conn as usize, s.data);
}

#[test]
fn every_227_parses_and_the_syn_follows_one_rtt_later() {
    let cfg = small();
    let w = ftp_workload(&cfg).unwrap();
    let mut replies = 0;
    for p in &w.packets {
        let ip = ip(&p.data);
        if let Some(t) = tcp(&ip) {
            if t.payload.starts_with(b"227") {
                replies += 1;
                parse_227(t.payload).expect("a 227 reply that parses");
            }
        }
    }
    assert_eq!(replies, w.connections.len());

    for c in &w.connections {
        let ann = &w.packets[c.announce_index];
        let aip = ip(&ann.data);
        let at = tcp(&aip).unwrap();
        assert_eq!(w.truth[c.announce_index], Class::Control(c.id));
        assert_eq!((aip.src, at.sport), (c.server, 21));
        assert_eq!(parse_227(at.payload), Some((c.server, c.port)));

        let syn = &w.packets[c.first_data_index];
        let sip = ip(&syn.data);
        let st = tcp(&sip).unwrap();
        assert_eq!(st.flags, 0x02, "first data packet is a bare SYN");
        assert_eq!(
            (sip.src, st.sport, sip.dst, st.dport),
            (c.client, c.client_port, c.server, c.port)
        );
        assert!(c.first_data_index > c.announce_index);
        assert!(
            syn.ts_ns - ann.ts_ns >= cfg.rtt_ns,
            "transfer {}: SYN {} ns after its 227",
            c.id,
            syn.ts_ns - ann.ts_ns
        );
        // Nothing of the data connection before its SYN.
        assert!(w.truth[..c.first_data_index]
            .iter()
            .all(|&cl| cl != Class::Data(c.id)));
        assert_eq!(w.truth[c.last_data_index], Class::Data(c.id));
    }
}

#[test]
fn checksums_sequence_numbers_and_time_order() {
    let w = ftp_workload(&small()).unwrap();
    for (i, p) in w.packets.iter().enumerate() {
        assert!(checksums_verify(&p.data), "packet {i}: bad checksum");
        assert_eq!(p.orig_len as usize, p.data.len());
        assert!(p.data.len() >= 60 && p.data.len() <= 1514);
        assert_eq!(p.ts_ns % 1000, 0);
    }
    assert!(w.packets.windows(2).all(|x| x[0].ts_ns <= x[1].ts_ns));

    // Each direction's sequence numbers continue exactly where the last segment
    // ended, acknowledgments never go backwards nor cover bytes the peer has not
    // sent yet, and IPv4 identifications count up by one.
    type Key = (Ipv4Addr, u16, Ipv4Addr, u16);
    let mut next: HashMap<Key, u32> = HashMap::new();
    let mut acked: HashMap<Key, u32> = HashMap::new();
    let mut ident: HashMap<Key, u16> = HashMap::new();
    for (i, p) in w.packets.iter().enumerate() {
        if w.truth[i] == Class::Background {
            continue;
        }
        let ip = ip(&p.data);
        let t = tcp(&ip).unwrap();
        let key = (ip.src, t.sport, ip.dst, t.dport);
        let syn = t.flags & 0x02 != 0;
        if syn {
            assert!(!next.contains_key(&key), "packet {i}: second SYN");
        } else {
            assert_eq!(next.get(&key), Some(&t.seq), "packet {i}: sequence gap");
        }
        let len = t.payload.len() as u32 + u32::from(syn) + u32::from(t.flags & 0x01 != 0);
        next.insert(key, t.seq.wrapping_add(len));
        if t.flags & 0x10 != 0 {
            let peer = next[&(ip.dst, t.dport, ip.src, t.sport)];
            let ahead = peer.wrapping_sub(t.ack);
            assert!(ahead < 1 << 30, "packet {i}: acknowledges unsent data");
            if let Some(&prev) = acked.get(&key) {
                let step = t.ack.wrapping_sub(prev);
                assert!(step < 1 << 30, "packet {i}: acknowledgment goes backwards");
            }
            acked.insert(key, t.ack);
        }
        let id = be16(ip.header, 4);
        if let Some(&prev) = ident.get(&key) {
            assert_eq!(id, prev.wrapping_add(1), "packet {i}: IPv4 identification");
        }
        ident.insert(key, id);
    }
}

#[test]
fn default_trace_reaches_full_concurrency() {
    let cfg = FtpConfig::default();
    let w = ftp_workload(&cfg).unwrap();
    let s = w.stats();
    assert_eq!(s.connections, 200);
    assert_eq!(s.max_concurrency, 200);
    assert_eq!(s.control + s.data + s.background, s.packets);
    assert_eq!(s.background, 0);
    // The documented size: under a few hundred thousand packets, about the
    // requested duration.
    assert!(s.packets < 300_000, "{} packets", s.packets);
    assert!(s.span_ns <= cfg.duration_ns + 200_000_000);
    assert!(s.span_ns >= cfg.duration_ns * 9 / 10);
    // Every data connection bursts its full 160 segments.
    assert!(w.connections.iter().all(|c| c.segments >= 160));
    // Data ports are distinct per server.
    let mut ports: HashMap<Ipv4Addr, Vec<u16>> = HashMap::new();
    for c in &w.connections {
        ports.entry(c.server).or_default().push(c.port);
    }
    assert_eq!(ports.len(), 10);
    for (_, mut v) in ports {
        let n = v.len();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), n);
    }
}

#[test]
fn missed_packets_counts_data_before_first_accept() {
    let w = ftp_workload(&small()).unwrap();
    let n = w.packets.len();
    assert!(w.missed_packets(&vec![true; n]).iter().all(|&m| m == 0));
    let none = w.missed_packets(&vec![false; n]);
    for (c, m) in w.connections.iter().zip(&none) {
        assert_eq!(*m, c.data_packets);
    }
    // A filter that first accepts each connection's third data packet missed two
    // of them, however many packets of other connections came in between.
    let mut acc = vec![false; n];
    for c in &w.connections {
        let third = (c.first_data_index..n)
            .filter(|&i| w.truth[i] == Class::Data(c.id))
            .nth(2)
            .unwrap();
        acc[third] = true;
    }
    assert!(w.missed_packets(&acc).iter().all(|&m| m == 2));
}

#[test]
fn pcap_reads_back_with_pcapio_and_snaplen_cuts() {
    let cfg = FtpConfig {
        snaplen: 96,
        ..small()
    };
    let w = ftp_workload(&cfg).unwrap();
    let path = temp_path("readback.pcap");
    let f = std::fs::File::create(&path).unwrap();
    w.write_pcap(std::io::BufWriter::new(f)).unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        w.stats().file_bytes
    );

    let mut rd = netsift_pcapio::open(&path).unwrap();
    assert_eq!(rd.linktype(), netsift_wire::LinkType::EN10MB);
    assert_eq!(rd.snaplen(), 96);
    let mut i = 0;
    while let Some(p) = rd.next_packet().unwrap() {
        let g = &w.packets[i];
        assert_eq!(p.ts_sec * 1_000_000_000 + u64::from(p.ts_nsec), g.ts_ns);
        assert_eq!(p.data, &g.data[..]);
        assert_eq!(p.orig_len, g.orig_len);
        assert!(p.data.len() <= 96);
        i += 1;
    }
    assert_eq!(i, w.packets.len());
    assert!(w
        .packets
        .iter()
        .any(|p| p.orig_len == 1514 && p.data.len() == 96));
    std::fs::remove_file(&path).ok();
}

#[test]
fn config_limits_are_enforced() {
    let bad = [
        FtpConfig {
            servers: 0,
            ..FtpConfig::default()
        },
        FtpConfig {
            transfers: 0,
            ..FtpConfig::default()
        },
        FtpConfig {
            servers: 1000,
            transfers: 100,
            ..FtpConfig::default()
        },
        FtpConfig {
            duration_ns: 0,
            ..FtpConfig::default()
        },
        FtpConfig {
            snaplen: 0,
            ..FtpConfig::default()
        },
        FtpConfig {
            burst_segments: 0,
            ..FtpConfig::default()
        },
        FtpConfig {
            background_pps: 100_000_000,
            ..FtpConfig::default()
        },
    ];
    for cfg in bad {
        let e = ftp_workload(&cfg).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("invalid FTP workload configuration"));
    }
    // Too short to hold a transfer: still valid, the trace just runs longer.
    let w = ftp_workload(&FtpConfig {
        servers: 1,
        transfers: 1,
        duration_ns: 1_000_000,
        rate_pps: 0,
        ..FtpConfig::default()
    })
    .unwrap();
    assert_eq!(w.connections[0].segments, 160);
}

fn tcpdump_available() -> bool {
    Command::new("tcpdump").arg("--version").output().is_ok()
}

/// Runs a shell pipeline and returns its standard output.
fn sh(script: &str) -> String {
    let out = Command::new("sh").arg("-c").arg(script).output().unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn write_small(w: &FtpWorkload, name: &str) -> PathBuf {
    let path = temp_path(name);
    std::fs::write(&path, w.write_pcap(Vec::new()).unwrap()).unwrap();
    path
}

#[test]
fn tcpdump_counts_the_control_packets_and_finds_no_bad_checksum() {
    if !tcpdump_available() {
        eprintln!("skip: tcpdump is not installed");
        return;
    }
    let w = ftp_workload(&small()).unwrap();
    let path = write_small(&w, "tcpdump.pcap");
    let p = path.display();
    let control: usize = sh(&format!(
        "tcpdump -r {p} -n 'tcp port 21' 2>/dev/null | wc -l"
    ))
    .trim()
    .parse()
    .unwrap();
    assert_eq!(control, w.stats().control);
    let total: usize = sh(&format!("tcpdump -r {p} -n 2>/dev/null | wc -l"))
        .trim()
        .parse()
        .unwrap();
    assert_eq!(total, w.packets.len());
    let bad: usize = sh(&format!(
        "tcpdump -r {p} -n -vv 2>/dev/null | grep -c incorrect || true"
    ))
    .trim()
    .parse()
    .unwrap();
    assert_eq!(bad, 0, "tcpdump -vv reports incorrect checksums");
    // The data filter the paper's FTPCap would build matches exactly the data
    // packets of one connection after its announcement... plus nothing else.
    let c = &w.connections[5];
    let n: usize = sh(&format!(
        "tcpdump -r {p} -n 'host {} and tcp port {}' 2>/dev/null | wc -l",
        c.server, c.port
    ))
    .trim()
    .parse()
    .unwrap();
    assert_eq!(n as u32, c.data_packets);
    std::fs::remove_file(&path).ok();
}

#[test]
fn command_line_writes_the_library_output() {
    let exe = env!("CARGO_BIN_EXE_netsift-bench");
    let pcap = temp_path("cli.pcap");
    let truth = temp_path("cli.tsv");
    let out = Command::new(exe)
        .args(["gen-ftp", "-o"])
        .arg(&pcap)
        .args([
            "--servers",
            "3",
            "--transfers",
            "4",
            "--duration-s",
            "2",
            "--background-pps",
            "2000",
            "--burst",
            "30",
            "--rate-pps",
            "15",
            "--seed",
            "7",
            "--truth",
        ])
        .arg(&truth)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("max 12 open at once"), "{stderr}");

    let w = ftp_workload(&small()).unwrap();
    assert_eq!(
        std::fs::read(&pcap).unwrap(),
        w.write_pcap(Vec::new()).unwrap()
    );
    let text = std::fs::read_to_string(&truth).unwrap();
    assert_eq!(text.as_bytes(), &w.write_truth(Vec::new()).unwrap()[..]);
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("# index\tclass\tconn"));
    for (i, line) in lines.enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 3);
        assert_eq!(f[0].parse::<usize>().unwrap(), i);
        assert_eq!(f[1], w.truth[i].name());
        match w.truth[i].conn() {
            Some(k) => assert_eq!(f[2].parse::<u32>().unwrap(), k),
            None => assert_eq!(f[2], "-"),
        }
    }

    let bad = Command::new(exe)
        .args(["gen-ftp", "-o"])
        .arg(&pcap)
        .args(["--servers", "0"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("servers must be"));
    std::fs::remove_file(&pcap).ok();
    std::fs::remove_file(&truth).ok();
}
