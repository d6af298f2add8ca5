//! The graph classes beyond filters and counters, through the real daemon
//! playing capture files the test writes: `follow` against the follower run
//! here over the same file (what `netsift --follow ftp` keeps) and the FTP
//! trace's ground truth; each external-function class standing alone
//! against a direct computation of its verdicts and MBuf; an FPL element
//! calling an administrator's `--patterns` set, one naming an unknown set
//! refused, and a bad pattern file stopping the daemon; `native` compiled here with `cc`, its verdicts and MBuf checked,
//! and a bad object refused.

mod common;

use common::{daemon, drain, graph_flow, wait_stats, write_frames, Connect};
use netsift_ffpf::{Client, Flow};
use netsift_testkit::frames::Frame;
use netsift_testkit::{require, Need};
use std::path::Path;

fn refused(c: &Client, source: &str, graph: &str) -> String {
    common::refusal(c, source, graph).to_string()
}

/// The daemon playing `frames`, written to a file in `dir`, as source `t`
/// once `flows` flows are active, with `args` after.
fn play(dir: &Path, frames: &[Vec<u8>], flows: usize, args: &[&str]) -> common::Daemon {
    let file = dir.join("t.pcap");
    write_frames(&file, frames);
    let src = format!("t={}", file.display());
    let wait = flows.to_string();
    let base = ["--file", &src, "--fast", "--wait-flows", &wait];
    daemon(None, &[&base[..], args].concat())
}

fn datas(f: &mut Flow) -> Vec<Vec<u8>> {
    drain(f).into_iter().map(|(d, _, _)| d).collect()
}

#[test]
fn follow_keeps_what_the_follower_keeps() {
    use netsift_follow::{Config, Follower, Mode, Protocol};
    use netsift_gen::ftp::{ftp_workload, Class, FtpConfig};
    let w = ftp_workload(&FtpConfig {
        servers: 2,
        transfers: 3,
        duration_ns: 2_000_000_000,
        burst_segments: 8,
        rate_pps: 5,
        background_pps: 300,
        ..FtpConfig::default()
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ftp.pcap");
    w.write_pcap(std::fs::File::create(&file).unwrap()).unwrap();

    // The follower over the file, as `netsift --follow ftp` runs it: its
    // live set first, then its exact verdict.
    let mut want = Vec::new();
    let lt = netsift_wire::LinkType::EN10MB;
    let (mut follower, live) =
        Follower::new(lt, &[Protocol::Ftp], None, Mode::Passes, Config::default()).unwrap();
    let mut scratch = netsift_engine::Scratch::new();
    let mut r = netsift_pcapio::open(&file).unwrap();
    let mut truth = Vec::new();
    let mut i = 0;
    while let Some(p) = r.next_packet().unwrap() {
        let ts = p.ts_sec * 1_000_000_000 + u64::from(p.ts_nsec);
        if live.matches(&mut scratch, p.data, p.orig_len)
            && follower.judge(p.data, p.orig_len, ts).0
        {
            want.push(p.data.to_vec());
            truth.push(w.truth[i]);
        }
        i += 1;
    }
    assert_eq!(i, w.packets.len());
    // The trace's ground truth: every control and data packet, no background.
    let kept = |c: fn(&Class) -> bool| truth.iter().filter(|t| c(t)).count();
    let all = |c: fn(&Class) -> bool| w.truth.iter().filter(|t| c(t)).count();
    assert_eq!(kept(|t| matches!(t, Class::Background)), 0);
    let data = |t: &Class| matches!(t, Class::Data(_));
    assert_eq!(
        (kept(data), want.len()),
        (all(data), all(|t| !matches!(t, Class::Background)))
    );
    assert!(all(|t| matches!(t, Class::Background)) > 100 && all(data) > 0);

    let src = format!("ftp={}", file.display());
    let d = daemon(None, &["--file", &src, "--fast", "--ibuf-entries", "4096"]);
    let c = d.client();
    let mut f = graph_flow(&c, "ftp", "(device,ftp) -> (follow,FTP)");
    wait_stats(&c, "playback", |s| s.sources[0].finished);
    assert_eq!(datas(&mut f), want);
    let e = refused(&c, "ftp", "(device,ftp) -> (follow,smtp)");
    assert!(
        e.contains("element 2 (follow)") && e.contains("ftp, sip, rtsp"),
        "{e}"
    );
}

/// An IPv4 frame's TCP or UDP payload and where it starts, read here
/// without netsift's code: Ethernet, IHL, the transport header's length.
fn payload(f: &[u8]) -> Option<(usize, &[u8])> {
    if f.get(12..14)? != [8, 0] {
        return None;
    }
    let ihl = 4 * usize::from(f[14] & 15);
    let total = usize::from(u16::from_be_bytes([f[16], f[17]]));
    let l4 = 14 + ihl;
    let hlen = match f[23] {
        17 => 8,
        6 => 4 * usize::from(f.get(l4 + 12)? >> 4),
        _ => return None,
    };
    let start = l4 + hlen;
    Some((start, f.get(start..(14 + total).min(f.len()))?))
}

fn find(hay: &[u8], pat: &[u8]) -> Option<usize> {
    hay.windows(pat.len()).position(|w| w == pat)
}

/// 32-bit FNV-1a, written here.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// TCP and UDP frames between a few hosts, with payloads that hold the
/// patterns or announce an FTP data port, some with a broken checksum, and
/// frames that are not IP.
fn mixed() -> Vec<Vec<u8>> {
    (0..150u32)
        .map(|i| {
            let host = [10, 0, 0, 1 + (i % 3) as u8];
            let body = match i % 5 {
                0 => format!("x{i} GET /default.ida?NNNN"),
                1 => format!(
                    "227 Entering Passive Mode (10,0,0,1,{},{})\r\n",
                    4 + i % 3,
                    i
                ),
                2 => format!("run cmd.exe /c {i}"),
                _ => format!("hello {i}"),
            };
            let f = Frame::default().ipv4(host, [10, 0, 1, 1]);
            let f = match i % 4 {
                0 | 1 => f.tcp(21, 4000 + (i % 2) as u16, 0x18),
                2 => f.udp(1000 + (i % 7) as u16, 53),
                _ if i % 8 == 3 => Frame::default().ethertype(0x88b5),
                _ => f.tcp(5000, 80, 0x18),
            };
            let mut b = f.payload(body.as_bytes()).build();
            match i % 11 {
                4 => *b.last_mut().unwrap() ^= 1,   // the TCP/UDP sum
                7 if b.len() > 20 => b[18] ^= 0x40, // the IPv4 header sum
                _ => {}
            }
            b
        })
        .collect()
}

#[test]
fn external_classes_alone_compute_what_the_test_computes() {
    let frames = mixed();
    let graphs = [
        r#"(device,t) -> (aho_corasick,"cmd.exe","default.ida",16)"#,
        r#"(device,t) -> (memmem,"GET",8)"#,
        "(device,t) -> (hash,16)",
        "(device,t) -> (checksum)",
        "(device,t) -> (dynport,ftp)",
        "(device,t) -> (topn,16)",
    ];
    let dir = tempfile::tempdir().unwrap();
    let d = play(
        dir.path(),
        &frames,
        graphs.len(),
        &["--ibuf-entries", "1024"],
    );
    let c = d.client();
    let mut flows: Vec<Flow> = graphs.iter().map(|g| graph_flow(&c, "t", g)).collect();
    wait_stats(&c, "playback", |s| s.sources[0].finished);
    let got: Vec<Vec<Vec<u8>>> = flows.iter_mut().map(datas).collect();
    let mbuf = |k: usize| flows[k].mbuf(1).unwrap().bytes();
    let slot = |m: &[u8], i: usize| u64::from_le_bytes(m[8 * i..8 * i + 8].try_into().unwrap());
    let keep = |p: &dyn Fn(&[u8]) -> bool| -> Vec<Vec<u8>> {
        frames.iter().filter(|f| p(f)).cloned().collect()
    };

    // Searches: the payload holds a pattern; MBuf the last match's offsets.
    let first = |f: &[u8], pats: &[&[u8]]| {
        let (at, p) = payload(f)?;
        pats.iter()
            .filter_map(|q| find(p, q).map(|s| (at + s, at + s + q.len())))
            .min()
    };
    let pats: [&[u8]; 2] = [b"cmd.exe", b"default.ida"];
    let want = keep(&|f| first(f, &pats).is_some());
    assert!(want.len() > 20 && want.len() < frames.len() / 2);
    assert_eq!(got[0], want, "{}", graphs[0]);
    let (s, e) = first(want.last().unwrap(), &pats).unwrap();
    assert_eq!((slot(&mbuf(0), 0), slot(&mbuf(0), 1)), (s as u64, e as u64));
    let want = keep(&|f| first(f, &[b"GET"]).is_some());
    assert_eq!(got[1], want, "{}", graphs[1]);
    let (s, _) = first(want.last().unwrap(), &[b"GET"]).unwrap();
    assert_eq!(slot(&mbuf(1), 0), s as u64);

    // hash: packets per bucket of FNV-1a over the addresses and ports.
    let key = |f: &[u8]| -> Option<Vec<u8>> {
        payload(f)?;
        let l4 = 14 + 4 * usize::from(f[14] & 15);
        Some([&f[26..34], &f[l4..l4 + 4]].concat())
    };
    let mut buckets = [0u64; 16];
    for k in frames.iter().filter_map(|f| key(f)) {
        buckets[(fnv1a(&k) % 16) as usize] += 1;
    }
    assert_eq!(got[2], keep(&|f| key(f).is_some()), "{}", graphs[2]);
    let m = mbuf(2);
    assert_eq!(m.len(), 128);
    let counted: Vec<u64> = (0..16).map(|b| slot(&m, b)).collect();
    assert_eq!(counted, buckets);
    assert!(
        buckets.iter().filter(|&&b| b > 0).count() > 3,
        "{buckets:?}"
    );

    // checksum: what the test did not break, of the IP frames.
    let broken = |i: usize| matches!(i % 11, 4 | 7);
    let want: Vec<Vec<u8>> = (0..frames.len())
        .filter(|&i| payload(&frames[i]).is_some() && !broken(i))
        .map(|i| frames[i].clone())
        .collect();
    assert!(want.len() < keep(&|f| payload(f).is_some()).len());
    assert_eq!(got[3], want, "{}", graphs[3]);
    assert!(flows[3].mbuf(1).is_err(), "checksum has no MBuf");

    // dynport: the 227 replies; MBuf the last one's port.
    let port = |f: &[u8]| {
        let (_, p) = payload(f)?;
        let t = std::str::from_utf8(p).ok()?;
        // A 227 reply's six numbers, then a non-digit (RFC 1123 §4.1.2.6):
        // the line's end need not be there.
        let (t, _) = t
            .strip_prefix("227 Entering Passive Mode (")?
            .split_once(')')?;
        let n: Vec<u64> = t
            .split(',')
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        Some(n[4] * 256 + n[5])
    };
    let want = keep(&|f| port(f).is_some());
    assert!(!want.is_empty());
    assert_eq!(got[4], want, "{}", graphs[4]);
    let m = mbuf(4);
    let last = port(want.last().unwrap()).unwrap();
    assert_eq!(
        (m.len(), slot(&m, 0), slot(&m, 1), slot(&m, 2)),
        (64, 1, last, 0)
    );

    // topn: every IPv4 TCP flow (at most 16) with its exact count.
    let tcp = |f: &[u8]| payload(f).is_some() && f[23] == 6;
    let mut exact = std::collections::BTreeMap::new();
    for f in frames.iter().filter(|f| tcp(f)) {
        let l4 = 14 + 4 * usize::from(f[14] & 15);
        let be = |a: usize| u32::from_be_bytes(f[a..a + 4].try_into().unwrap());
        let port = |a: usize| u16::from_be_bytes([f[a], f[a + 1]]);
        *exact
            .entry((be(26), be(30), port(l4), port(l4 + 2)))
            .or_insert(0u32) += 1;
    }
    assert!(exact.len() > 2 && exact.len() <= 16, "{exact:?}");
    assert_eq!(got[5], keep(&tcp), "{}", graphs[5]);
    let m = mbuf(5);
    let total: u32 = exact.values().sum();
    assert_eq!((m.len(), slot(&m, 0)), (8 + 16 * 16, u64::from(total)));
    let mut table = std::collections::BTreeMap::new();
    for e in m[8..].chunks(16) {
        let u32at = |a: usize| u32::from_le_bytes(e[a..a + 4].try_into().unwrap());
        let u16at = |a: usize| u16::from_le_bytes([e[a], e[a + 1]]);
        if u32at(12) > 0 {
            table.insert((u32at(0), u32at(4), u16at(8), u16at(10)), u32at(12));
        }
    }
    assert_eq!(table, exact);
}

#[test]
fn fpl_calls_an_administrators_pattern_set_by_name() {
    let frames = mixed();
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("worms.txt");
    std::fs::write(&set, "# two worms\ncmd\\x2eexe\n\\s/default.ida\n").unwrap();
    let arg = format!("worms={}", set.display());
    let d = play(dir.path(), &frames, 1, &["--patterns", &arg]);
    let c = d.client();
    // Counts each pattern's matches in MEM[4], MEM[5]; passes a match.
    let prog = r#"
        IF (PKT.ETH_TYPE == ETH_P_IP && PKT.IP_PROTO == PROTO_TCP) THEN
          MEM[0] = PKT.TCP_PAYLOAD;
          MEM[1] = 1500;
          R[0] = EXTERN("aho_corasick:worms", 0, 16);
          IF (R[0]) THEN
            MEM[3 + R[0]]++;
            RETURN 1;
          FI
        FI
        RETURN 0;
    "#;
    let g = format!("(device,t) -> (fpl,\"{}\",48)", prog.replace('"', "\\\""));
    let e = refused(&c, "t", &g.replace("worms", "viruses"));
    assert!(
        e.contains("element 2 (fpl)") && e.contains("aho_corasick:viruses"),
        "{e}"
    );
    let mut f = graph_flow(&c, "t", &g);
    wait_stats(&c, "playback", |s| s.sources[0].finished);
    let has =
        |f: &[u8], p: &[u8]| payload(f).is_some_and(|(_, h)| f[23] == 6 && find(h, p).is_some());
    let want: Vec<Vec<u8>> = frames
        .iter()
        .filter(|f| has(f, b"cmd.exe") || has(f, b" /default.ida"))
        .cloned()
        .collect();
    assert!(!want.is_empty());
    assert_eq!(datas(&mut f), want);
    let m = f.mbuf(1).unwrap();
    let count = |p: &[u8]| frames.iter().filter(|f| has(f, p)).count() as u64;
    assert_eq!(
        (m.u64(32), m.u64(40)),
        (Some(count(b"cmd.exe")), Some(count(b" /default.ida")))
    );
}

#[test]
fn a_bad_pattern_file_stops_the_daemon_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "cmd.exe\n# fine\nroot\\q\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_netsiftd"))
        .arg("--socket")
        .arg(dir.path().join("s.sock"))
        .args(["--file", "t=unused.pcap", "--patterns"])
        .arg(format!("worms={}", bad.display()))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("bad.txt, line 3: unknown escape `\\q`"),
        "{err}"
    );
    assert!(!dir.path().join("s.sock").exists());
}

/// The daemon's own check of the object as root: an example filter built
/// here, loaded through a graph, and a group-writable one refused.
#[test]
fn native_runs_roots_object_with_its_mbuf() {
    // The object must be root's, and built here.
    require!(Need::Root, Need::Command("cc"));
    let dir = tempfile::tempdir().unwrap();
    let so = netsift_testkit::native::example_filter(dir.path());
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&so, std::fs::Permissions::from_mode(0o755)).unwrap();

    let frames = mixed();
    let d = play(dir.path(), &frames, 1, &[]);
    let c = d.client();
    let g = format!(r#"(device,t) -> (native,"{}",24)"#, so.display());
    let mut f = graph_flow(&c, "t", &g);
    wait_stats(&c, "playback", |s| s.sources[0].finished);
    let udp = |f: &[u8]| f.len() >= 24 && f[12..14] == [8, 0] && f[23] == 17;
    let want: Vec<Vec<u8>> = frames.iter().filter(|f| udp(f)).cloned().collect();
    assert!(!want.is_empty());
    assert_eq!(datas(&mut f), want);
    let m = f.mbuf(1).unwrap();
    let bytes: u64 = want.iter().map(|f| f.len() as u64).sum();
    assert_eq!(
        (m.u64(0), m.u64(8), m.u64(16)),
        (
            Some(frames.len() as u64),
            Some(bytes),
            Some(netsift_testkit::native::EXAMPLE_MARK)
        )
    );

    std::fs::set_permissions(&so, std::fs::Permissions::from_mode(0o775)).unwrap();
    let e = refused(&c, "t", &g);
    assert!(
        e.contains("element 2 (native)") && e.contains("writable by its group"),
        "{e}"
    );
    let e = refused(&c, "t", r#"(device,t) -> (native,"lib/f.so")"#);
    assert!(e.contains("absolute path"), "{e}");
}
