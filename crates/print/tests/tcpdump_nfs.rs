//! NFS over Sun RPC against the installed tcpdump, every line of its output
//! with `-nn`, `-v`, `-vv`, `-u`, `-vv -u`, `-x` and `-e -v`: the corpus's NFS captures, and
//! an exchange this test writes (the corpus has few whole ones): calls and
//! replies of every NFS v3 procedure and some of v2, over UDP (IPv4 and IPv6)
//! and TCP (with the record mark), errors, rejected and refused calls, file
//! handles of the layouts tcpdump guesses, replies whose calls fell out of the
//! 64-call map, and frames cut short at every word; and `-T rpc`, which prints
//! every UDP payload as Sun RPC (portmapper calls, NFS replies), with and
//! without `-n`. Skipped, with a message, when tcpdump is absent.

mod common;

use common::build::{eth, ipv4_between, ipv6, tcp_seg, udp};
use common::capture::read_capture;
use common::tcpdump::have_tcpdump;
use common::whole::{compare, compare_as, options};
use common::write::write_pcap;
use netsift_print::{Names, PacketType};
use netsift_wire::LinkType;

/// The flag sets compared (each with `-nn`); `-x` dumps the frames, after
/// the link header or not as the way a printer stops asks.
const FLAGS: [&[&str]; 7] = [
    &[],
    &["-v"],
    &["-vv"],
    &["-u"],
    &["-vv", "-u"],
    &["-x"],
    &["-e", "-v"],
];

/// The corpus's NFS captures (several are fuzzers' crashers; the `hoobr_*`
/// ones no longer reach NFS in tcpdump 4.99: their frames are garbage).
const CORPUS: [&str; 8] = [
    "hoobr_nfs_printfh.pcap",
    "hoobr_nfs_xid_map_enter.pcap",
    "nfs-attr-oobr.pcap",
    "nfs-cannot-pad-32-bit.pcap",
    "nfs-seg-fault-1.pcapng",
    "nfs-write-verf-cookie.pcapng",
    "nfs_large_credentials_length.pcap",
    "unaligned-nfs-1.pcap",
];

fn check(cap: &common::CaptureFile) -> usize {
    let mut compared = 0;
    let mut diffs = Vec::new();
    for flags in FLAGS {
        let (n, d) = compare(cap, flags);
        compared += n;
        diffs.extend(d);
    }
    assert!(
        diffs.is_empty(),
        "{} of {compared} packets differ:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    compared
}

#[test]
fn corpus_nfs_captures_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let dir = common::corpus_root().join("tcpdump");
    let mut total = 0;
    for name in CORPUS {
        let path = dir.join(name);
        let Some(packets) = std::fs::read(&path).ok().and_then(|b| read_capture(&b)) else {
            println!("{name}: not in the corpus, skipped");
            continue;
        };
        let lt = packets[0].linktype;
        let recs = packets.into_iter().map(|p| (p.data, p.wire_len)).collect();
        total += check(&(path, lt, recs));
    }
    println!("{total} packets compared");
}

/// XDR: big-endian words, opaque data padded to a word.
#[derive(Default, Clone)]
struct Xdr(Vec<u8>);

impl Xdr {
    fn u(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn h(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn opaque(self, b: &[u8]) -> Self {
        let mut x = self.u(b.len() as u32);
        x.0.extend_from_slice(b);
        x.0.resize(x.0.len().div_ceil(4) * 4, 0);
        x
    }
    fn raw(mut self, b: &[u8]) -> Self {
        self.0.extend_from_slice(b);
        self
    }
    /// A v3 `fattr3` of type `ty`.
    fn fattr(self, ty: u32, n: u32) -> Self {
        self.u(ty)
            .u(0o100644 + n)
            .u(2)
            .u(1000)
            .u(0xffff_fffe)
            .h(4096 + u64::from(n))
            .h(8192)
            .u(8)
            .u(n)
            .h(0x5b7a_aa58_0000_0000)
            .h(0x2ab14 + u64::from(n))
            .u(1_535_100_894)
            .u(465_310_536)
            .u(1_535_100_895)
            .u(12)
            .u(1_535_100_896)
            .u(999_999)
    }
    /// `post_op_attr` with attributes.
    fn post(self, n: u32) -> Self {
        self.u(1).fattr(1, n)
    }
    /// `wcc_data` with both attributes.
    fn wcc(self, n: u32) -> Self {
        self.u(1)
            .h(100 + u64::from(n))
            .u(1_600_000_000)
            .u(7)
            .u(1_600_000_001)
            .u(123_456_789)
            .post(n)
    }
    /// A `sattr3` setting the mode, the uid, the size and both times.
    fn sattr(self) -> Self {
        self.u(1)
            .u(0o755)
            .u(1)
            .u(1000)
            .u(0)
            .u(1)
            .h(77)
            .u(2)
            .u(1_700_000_000)
            .u(5)
            .u(2)
            .u(1_700_000_001)
            .u(6)
    }
}

/// File handles of the layouts tcpdump tells apart, and lengths around its
/// thresholds (4 and 7 words).
fn handles() -> Vec<Vec<u8>> {
    let mut linux = vec![1, 0, 7, 1, 0, 0x0a, 0, 2, 0, 0, 0, 0];
    linux.extend_from_slice(&[0x9e, 0x1c, 0x2f, 0x51, 0x73, 0x0c, 0x44, 0x1e]);
    linux.extend_from_slice(&[0x8b, 0x81, 0x7e, 0x3d, 0x5a, 0x6b, 0x11, 0x22]);
    let mut vms = vec![0x05];
    vms.extend_from_slice(b"DKA100 ");
    vms.resize(14, 0);
    vms.resize(32, 0x41);
    vec![
        linux,
        vec![0, 0, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0x30, 0x39],
        vec![
            5, 6, 0, 0, 1, 0, 0, 0, 9, 9, 9, 9, 0x10, 0x27, 0, 0, 1, 2, 3, 4,
        ],
        vec![0, 0, 0, 7, 0, 8, 0, 0, 0, 0, 0, 99, 0, 0, 0, 5],
        vec![0, 0, 0, 7, 1, 0, 0, 0, 12, 0, 0, 0, 0x39, 0x30, 0, 0],
        vec![0x12, 0x34, 0x56, 0x78, 0, 0, 0, 2, 0, 10, 0, 0, 0, 1, 0, 1],
        vec![
            0x12, 0, 0, 0, 1, 1, 1, 1, 1, 10, 1, 1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0,
        ],
        vms,
        vec![0xab; 8],
        vec![0xcd; 64],
    ]
}

/// An RPC call of NFS `vers`, procedure `proc_`, with AUTH_UNIX credentials.
fn call(xid: u32, vers: u32, proc_: u32, args: &Xdr) -> Vec<u8> {
    let cred = Xdr::default()
        .u(0x5f00_0001)
        .opaque(b"client")
        .u(1000)
        .u(1000)
        .u(2)
        .u(4)
        .u(27);
    Xdr::default()
        .u(xid)
        .u(0)
        .u(2)
        .u(100_003)
        .u(vers)
        .u(proc_)
        .u(1)
        .opaque(&cred.0)
        .u(0)
        .u(0)
        .raw(&args.0)
        .0
}

/// An accepted, successful reply with `res`.
fn reply(xid: u32, res: &Xdr) -> Vec<u8> {
    Xdr::default().u(xid).u(1).u(0).u(0).u(0).u(0).raw(&res.0).0
}

/// The calls and replies of every v3 procedure on handle `fh`, `n` numbering
/// their values.
fn v3_exchange(fh: &[u8], n: u32) -> Vec<(Vec<u8>, Vec<u8>)> {
    let x = Xdr::default;
    let f = || x().opaque(fh);
    let ok = || x().u(0);
    let name = |s: &str| f().opaque(s.as_bytes());
    let cases: Vec<(u32, Xdr, Xdr)> = vec![
        (0, x(), x()),
        (1, f(), ok().fattr(2, n)),
        (2, f().sattr().u(0), ok().wcc(n)),
        (3, name("file.txt"), ok().opaque(fh).post(n).post(n + 1)),
        (3, name("missing\u{7f}"), x().u(2).u(0)),
        (4, f().u(0x1f), ok().post(n).u(0x1f)),
        (4, f().u(0x3f), ok().u(0).u(0x3f)),
        (4, f().u(0x40), x().u(13).u(0)),
        (5, f(), ok().post(n).opaque(b"../target")),
        (
            6,
            f().h(1 << 33).u(4096),
            ok().post(n).u(4096).u(1).opaque(&[7; 16]),
        ),
        (
            7,
            f().h(8192).u(3).u(0).opaque(b"abc"),
            ok().wcc(n).u(3).u(0).h(0x851b4),
        ),
        (
            7,
            f().h(0).u(5).u(2).opaque(b"hello"),
            ok().wcc(n).u(5).u(2).h(u64::MAX),
        ),
        (7, f().h(0).u(1).u(7).opaque(b"z"), x().u(28).wcc(n)),
        (
            8,
            name("new").u(0).sattr(),
            ok().u(1).opaque(fh).post(n).wcc(n + 1),
        ),
        (9, name("dir").sattr(), ok().u(0).wcc(n)),
        (
            10,
            name("ln").sattr().opaque(b"/etc/hosts"),
            ok().u(1).opaque(fh).u(0).wcc(n),
        ),
        (11, name("dev").u(4).sattr().u(4).u(64), x().u(17).wcc(n)),
        (12, name("old"), ok().wcc(n)),
        (13, name("dir"), x().u(66).u(0).u(0)),
        (
            14,
            name("a").opaque(fh).opaque(b"b"),
            ok().wcc(n).wcc(n + 1),
        ),
        (15, f().opaque(fh).opaque(b"hard"), ok().post(n).wcc(n)),
        (
            16,
            f().h(0).h(0).u(4096),
            ok().post(n).h(0x0102_0304_0506_0708).u(0).u(1),
        ),
        (
            17,
            f().h(u64::MAX).h(9).u(1024).u(8192),
            ok().post(n).h(9).u(0).u(1),
        ),
        (
            18,
            f(),
            ok().post(n)
                .h(1 << 40)
                .h(1 << 39)
                .h(1 << 38)
                .h(10)
                .h(9)
                .h(8)
                .u(0),
        ),
        (
            19,
            f(),
            ok().post(n)
                .u(1 << 20)
                .u(1 << 20)
                .u(4096)
                .u(1 << 20)
                .u(1 << 20)
                .u(4096)
                .u(4096)
                .h(u64::MAX)
                .u(0)
                .u(1)
                .u(0x1b),
        ),
        (20, f(), ok().post(n).u(32000).u(255).u(1).u(0).u(0).u(1)),
        (21, f().h(0).u(0), ok().wcc(n).h(0xdead_beef)),
        (30, f(), ok()),
    ];
    cases
        .into_iter()
        .enumerate()
        .map(|(i, (p, args, res))| {
            let xid = n * 1000 + i as u32;
            (call(xid, 3, p, &args), reply(xid, &res))
        })
        .collect()
}

/// Calls and replies of NFS v2 on its 32-byte handles.
fn v2_exchange(n: u32) -> Vec<(Vec<u8>, Vec<u8>)> {
    let x = Xdr::default;
    let fh = [0x11u8; 32];
    let f = || x().raw(&fh);
    let fattr = |x: Xdr| (0..17).fold(x.u(1).u(0o100600), |x, i| x.u(i * 3 + n));
    let cases: Vec<(u32, Xdr, Xdr)> = vec![
        (1, f(), fattr(x().u(0))),
        (
            2,
            f().u(0o644).u(1).u(2).u(3).u(0).u(0).u(0).u(0),
            fattr(x().u(0)),
        ),
        (4, f().opaque(b"name"), fattr(x().u(0).raw(&fh))),
        (5, f(), x().u(0).opaque(b"link")),
        (6, f().u(100).u(200).u(0), fattr(x().u(0)).opaque(b"data")),
        (8, f().u(0).u(8).u(3).opaque(b"abc"), fattr(x().u(0))),
        (
            9,
            f().opaque(b"c").u(0o644).u(0).u(0).u(0).u(0).u(0).u(0).u(0),
            x().u(70),
        ),
        (10, f().opaque(b"r"), x().u(0)),
        (11, f().opaque(b"a").raw(&fh).opaque(b"b"), x().u(18)),
        (16, f().u(0).u(512), x().u(0).u(0x10).u(512).u(1)),
        (17, f(), x().u(0).u(8192).u(4096).u(100).u(50).u(40)),
        (3, f(), x()),
    ];
    cases
        .into_iter()
        .enumerate()
        .map(|(i, (p, args, res))| {
            let xid = 0x7000_0000 + n * 100 + i as u32;
            (call(xid, 2, p, &args), reply(xid, &res))
        })
        .collect()
}

/// Replies an RPC server gives instead of results, each to a call made
/// before it.
fn refusals() -> Vec<(Vec<u8>, Vec<u8>)> {
    let x = Xdr::default;
    let args = x().opaque(&[0; 16]);
    let replies = [
        // Denied: RPC version mismatch, authentication errors, another.
        x().u(1).u(1).u(0).u(2).u(3),
        x().u(1).u(1).u(1).u(5),
        x().u(1).u(1).u(1).u(99),
        x().u(1).u(1).u(7),
        // A reply status that is neither.
        x().u(1).u(2),
        // Accepted but not run, and a verifier longer than the message.
        x().u(1).u(0).u(0).u(0).u(1),
        x().u(1).u(0).u(0).u(0).u(9),
        x().u(1).u(0).u(0).u(400).u(0),
    ];
    replies
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let xid = 0x0bad_0000 + i as u32;
            let mut rep = xid.to_be_bytes().to_vec();
            rep.extend_from_slice(&r.0);
            (call(xid, 3, 1, &args), rep)
        })
        .collect()
}

const CLIENT: [u8; 4] = [192, 168, 1, 10];
const SERVER: [u8; 4] = [192, 168, 1, 2];

fn udp4(from_client: bool, rpc: &[u8]) -> Vec<u8> {
    let (s, d, sp, dp) = if from_client {
        (CLIENT, SERVER, 800, 2049)
    } else {
        (SERVER, CLIENT, 2049, 800)
    };
    eth(0x0800, &ipv4_between(17, s, d, &udp(sp, dp, rpc)))
}

fn tcp4(from_client: bool, rpc: &[u8]) -> Vec<u8> {
    let mut rec = (0x8000_0000u32 | rpc.len() as u32).to_be_bytes().to_vec();
    rec.extend_from_slice(rpc);
    let (s, d, sp, dp) = if from_client {
        (CLIENT, SERVER, 1023, 2049)
    } else {
        (SERVER, CLIENT, 2049, 1023)
    };
    eth(
        0x0800,
        &ipv4_between(6, s, d, &tcp_seg(sp, dp, 1, 1, 0x18, &[], &rec)),
    )
}

fn udp6(from_client: bool, rpc: &[u8]) -> Vec<u8> {
    // The builder's addresses: fe80::1 is the client, ff02::fb the server,
    // so a reply has them the other way round.
    let mut ip = ipv6(
        17,
        &udp(
            if from_client { 800 } else { 2049 },
            if from_client { 2049 } else { 800 },
            rpc,
        ),
    );
    if !from_client {
        let (a, b) = (ip[8..24].to_vec(), ip[24..40].to_vec());
        ip[8..24].copy_from_slice(&b);
        ip[24..40].copy_from_slice(&a);
    }
    eth(0x86dd, &ip)
}

/// The test's capture: every exchange over each transport, then frames cut
/// short, then replies to calls the map no longer holds.
fn records() -> Vec<(Vec<u8>, u32)> {
    let mut pairs = Vec::new();
    for (i, fh) in handles().iter().enumerate() {
        pairs.extend(v3_exchange(fh, i as u32 + 1));
    }
    pairs.extend(v2_exchange(1));
    pairs.extend(refusals());
    let whole = |f: Vec<u8>| {
        let n = f.len() as u32;
        (f, n)
    };
    let mut recs = Vec::new();
    type Frame = fn(bool, &[u8]) -> Vec<u8>;
    let transports: [Frame; 3] = [udp4, tcp4, udp6];
    for (t, frame) in transports.iter().enumerate() {
        for (i, (c, r)) in pairs.iter().enumerate() {
            // The handles' other layouts once, over UDP/IPv4.
            if t > 0 && i >= 28 && i < 28 * handles().len() {
                continue;
            }
            recs.push(whole(frame(true, c)));
            recs.push(whole(frame(false, r)));
        }
    }
    // Cut short at every word: the linux handle's exchange over UDP.
    for (c, r) in pairs.iter().take(28) {
        for f in [udp4(true, c), udp4(false, r)] {
            let wire = f.len() as u32;
            for end in (42 + 8..f.len()).step_by(4) {
                recs.push((f[..end].to_vec(), wire));
            }
        }
    }
    // 70 calls, then replies to the first and last: the first have fallen
    // out of the 64-entry map and print no procedure.
    let args = Xdr::default().opaque(&handles()[0]);
    for i in 0..70 {
        recs.push(whole(udp4(true, &call(0x0c00_0000 + i, 3, 1, &args))));
    }
    for i in [0, 5, 69] {
        let res = Xdr::default().u(0).fattr(1, i);
        recs.push(whole(udp4(false, &reply(0x0c00_0000 + i, &res))));
    }
    recs
}

/// `recs` written to a capture in a directory of its own: the directory
/// (for the caller to remove) and the capture.
fn written(name: &str, recs: Vec<(Vec<u8>, u32)>) -> (std::path::PathBuf, common::CaptureFile) {
    let dir = std::env::temp_dir().join(format!("netsift-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.pcap"));
    write_pcap(&path, LinkType::EN10MB, &recs);
    (dir, (path, LinkType::EN10MB, recs))
}

#[test]
fn written_nfs_exchange_matches_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let (dir, cap) = written("nfs", records());
    let n = check(&cap);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        n,
        FLAGS.len() * cap.2.len(),
        "tcpdump printed other packets"
    );
    println!("{n} packets compared");
}

/// An RPC call of program `prog`, version `vers`, procedure `proc_`, RPC
/// version `rpcvers`, with no credentials.
fn rpc_call(xid: u32, rpcvers: u32, prog: u32, vers: u32, proc_: u32) -> Vec<u8> {
    Xdr::default()
        .u(xid)
        .u(0)
        .u(rpcvers)
        .u(prog)
        .u(vers)
        .u(proc_)
        .u(0)
        .u(0)
        .u(0)
        .u(0)
        .0
}

/// The capture `-T rpc` is compared on: UDP between 127.0.0.1 and itself
/// (a name the hosts file gives without a DNS query), on ports other than
/// NFS's too: portmapper calls of each procedure, programs named in
/// /etc/rpc and not, an RPC version other than 2, replies accepted and
/// denied, and payloads cut short.
fn rpc_records() -> Vec<(Vec<u8>, u32)> {
    let lo = [127, 0, 0, 1];
    let frame =
        |sp: u16, dp: u16, rpc: &[u8]| eth(0x0800, &ipv4_between(17, lo, lo, &udp(sp, dp, rpc)));
    let mut payloads = Vec::new();
    for (i, prog) in [100_000u32, 100_003, 100_005, 123_456_789]
        .into_iter()
        .enumerate()
    {
        for p in 0..8 {
            payloads.push((
                700,
                111,
                rpc_call(0xa000 + 16 * i as u32 + p, 2, prog, 3, p),
            ));
        }
    }
    payloads.push((700, 111, rpc_call(0xb000, 3, 100_000, 2, 3)));
    payloads.push((5000, 6000, rpc_call(0xb001, 2, 100_003, 3, 1)));
    let mut replies = refusals().into_iter().map(|(_, r)| r).collect::<Vec<_>>();
    replies.push(reply(0xb001, &Xdr::default().u(0).fattr(1, 1)));
    replies.push(Xdr::default().u(0xb002).u(2).u(0).0);
    for r in replies {
        payloads.push((111, 700, r));
    }
    let mut recs: Vec<(Vec<u8>, u32)> = payloads
        .iter()
        .map(|(sp, dp, p)| {
            let f = frame(*sp, *dp, p);
            let n = f.len() as u32;
            (f, n)
        })
        .collect();
    let whole = frame(700, 111, &rpc_call(0xc000, 2, 100_000, 2, 3));
    for end in [42 + 4, 42 + 8, 42 + 20, 42 + 31] {
        recs.push((whole[..end].to_vec(), whole.len() as u32));
    }
    recs
}

#[test]
fn rpc_type_matches_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let (dir, cap) = written("rpc", rpc_records());
    let read = |f: &str| std::fs::read_to_string(f).unwrap_or_default();
    let names: &'static Names = Box::leak(Box::new(
        Names::new()
            .with_services(&read("/etc/services"))
            .with_hosts(&read("/etc/hosts")),
    ));
    let mut compared = 0;
    let mut diffs = Vec::new();
    for flags in [&[][..], &["-v"], &["-q"]] {
        for numeric in [true, false] {
            let mut opts = options(flags);
            opts.summary.packet_type = Some(PacketType::Rpc);
            opts.summary.quiet = flags.contains(&"-q");
            let mut all = vec!["-T", "rpc"];
            if numeric {
                all.push("-nn");
            } else {
                opts.summary.names = Some(names);
            }
            all.extend_from_slice(flags);
            let (n, d) = compare_as(&cap, &all, opts);
            compared += n;
            diffs.extend(d);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        diffs.is_empty(),
        "{} of {compared} packets differ:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    assert_eq!(compared, 6 * cap.2.len(), "tcpdump printed other packets");
    println!("{compared} packets compared");
}
