//! The last of tcpdump's printers netsift lacked, against tcpdump 4.99.3 on
//! the corpus captures that carry them, every packet's line, continuation
//! lines and dumps, under `-nn`, `-v`, `-vv`, `-vvv` and `-e` (and `-x` and `-X -vvv` for the hostile
//! captures, whose cut packets must end as tcpdump ends them): the `-T`
//! types (ZMTP/1.0 over TCP and PGM, RTP, RTCP, vat, CARP, NetFlow, LMP);
//! LMP's objects (`-v`); PPP's PAP and multilink header (and `-x`'s
//! 4-byte PPP header); zephyr; telnet's commands (and written segments);
//! lwres (and written queries and responses); IGRP (and written updates and requests);
//! RIPng (and written requests and responses, over IPv6 and IPv4);
//! NetFlow v1, v5 and v6 on a capture this test writes (the corpus has none).
//! Skipped, with a message, without tcpdump or the corpus.

mod common;

use common::build::{eth, ipv4, ipv6, tcp, udp};
use common::write::with_written;
use common::{corpus_capture, tcpdump_and_corpus, whole, CaptureFile};
use netsift_print::{Packet, PacketType, PrintOptions, Printer};
use netsift_wire::LinkType;
use std::path::Path;
use std::process::Command;

/// Each capture, the `-T` type it is read with (if any), and whether it is
/// hostile (then `-x` too).
const CAPTURES: &[(&str, Option<&str>, bool)] = &[
    ("zmtp1.pcap", Some("zmtp1"), false),
    ("zmtp1-inf-loop-1.pcapng", Some("zmtp1"), true),
    ("pgm_zmtp1.pcap", Some("pgm_zmtp1"), false),
    ("epgm_zmtp1.pcap", Some("pgm_zmtp1"), false),
    ("rtp-seg-fault-1.pcapng", Some("rtp"), true),
    ("rtp-seg-fault-2.pcapng", Some("rtp"), true),
    ("rtp-seg-fault-1.pcapng", Some("rtcp"), true),
    ("rtp-seg-fault-2.pcapng", Some("rtcp"), true),
    ("rtp-seg-fault-1.pcapng", Some("vat"), true),
    ("rtp-seg-fault-2.pcapng", Some("vat"), true),
    ("vrrp.pcap", Some("carp"), false),
    ("vrrp-vrrp_print-oobr.pcap", Some("carp"), true),
    ("vrrp-vrrp_print-oobr-2.pcap", Some("carp"), true),
    ("lmp.pcap", None, false),
    ("lmp.pcap", Some("lmp"), false),
    ("lmpv1_busyloop.pcap", None, true),
    ("lmp-lmp_print_data_link_subobjs-oobr.pcap", None, true),
    ("mlppp-oobr.pcap", None, true),
    ("truncated-aack.pcap", None, true),
    ("ppp-invalid-lengths.pcap", None, true),
    ("zephyr-oobr.pcap", None, true),
    ("hoobr_zephyr_parse_field.pcap", None, true),
    ("telnet-iac-check-oobr.pcap", None, true),
    ("lwres_with_extra.pcap", None, true),
    ("lwres-pointer-arithmetic-ub.pcap", None, true),
    ("igrp-oobr.pcap", None, true),
    // PPP over Ethernet whose protocol is an HDLC escape (`ppp_hdlc`).
    ("of10_inv_QUEUE_GET_CONFIG_REPLY.pcap", None, true),
    ("hoobr_ripng_print.pcap", None, true),
    // DNS names of hundreds of labels, and the reserved label type.
    ("dns-badlabel.pcap", None, true),
    // LISP records whose EID is not decoded: the line each starts stays empty.
    ("lisp_invalid.pcap", None, true),
];

const FLAGS: &[&[&str]] = &[&[], &["-v"], &["-vv"], &["-vvv"], &["-e"]];

/// Compares `cap` under each flag set (with `-x` when `hostile`) read as
/// `t`; the packets compared, and the differences added to `failures`.
fn compare(cap: &CaptureFile, t: Option<&str>, hostile: bool, failures: &mut Vec<String>) -> usize {
    let mut sets: Vec<Vec<&str>> = FLAGS.iter().map(|f| f.to_vec()).collect();
    if hostile {
        sets.push(vec!["-x"]);
        sets.push(vec!["-v", "-x"]);
        // tcpdump's -X with -vvv: telnet dumps each command in hex.
        sets.push(vec!["-vvv", "-X"]);
    }
    let mut compared = 0;
    for flags in sets {
        let mut all = vec!["-nn"];
        all.extend(&flags);
        let mut opts = whole::options(&flags);
        if let Some(t) = t {
            all.extend(["-T", t]);
            opts.summary.packet_type = Some(PacketType::from_name(t).expect("a -T type"));
        }
        let theirs = tcpdump_text(&cap.0, &all);
        assert!(
            !theirs.is_empty(),
            "{} {all:?}: tcpdump printed nothing",
            cap.0.display()
        );
        let ours = netsift_text(cap, opts);
        compared += cap.2.len();
        if ours != theirs {
            failures.push(first_difference(&cap.0, &all, &ours, &theirs));
        }
    }
    compared
}

/// Lines without their trailing blanks (NetFlow's records end in one).
fn trimmed(text: &str) -> Vec<String> {
    text.lines().map(|l| l.trim_end().to_string()).collect()
}

/// `tcpdump -t flags -r path`'s output, whole: NetFlow's continuation lines
/// start with two blanks, which the packet-by-packet comparison of
/// `common::whole` takes for new packets.
fn tcpdump_text(path: &Path, flags: &[&str]) -> Vec<String> {
    let out = Command::new("tcpdump")
        .arg("-t")
        .args(flags)
        .arg("-r")
        .arg(path)
        .env("TZ", "UTC")
        .output()
        .expect("run tcpdump");
    trimmed(&String::from_utf8_lossy(&out.stdout))
}

/// netsift's output for every packet of `cap`, as [`tcpdump_text`]'s.
fn netsift_text(cap: &CaptureFile, opts: PrintOptions) -> Vec<String> {
    let mut printer = Printer::new(cap.1, opts);
    let mut text = String::new();
    for (data, wire) in &cap.2 {
        let packet = Packet {
            sec: 0,
            frac: 0,
            data,
            wire_len: *wire,
        };
        // Each line ends in its newline; one a printer leaves before it (an
        // empty line) stays, as in tcpdump's output.
        text.push_str(printer.line(&packet));
    }
    trimmed(&text)
}

/// The first line where `ours` and `theirs` part, with its neighbours.
fn first_difference(path: &Path, flags: &[&str], ours: &[String], theirs: &[String]) -> String {
    let i = ours
        .iter()
        .zip(theirs)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(theirs.len()));
    let around = |v: &[String]| v[i.saturating_sub(2)..(i + 3).min(v.len())].join("\n");
    format!(
        "{} {flags:?} line {i}\n   ours:\n{}\n   tcpd:\n{}",
        path.display(),
        around(ours),
        around(theirs)
    )
}

#[test]
fn ptail_printers_print_what_tcpdump_prints() {
    if tcpdump_and_corpus("tcpdump").is_none() {
        return;
    }
    let mut failures = Vec::new();
    let mut compared = 0;
    for &(name, t, hostile) in CAPTURES {
        compared += compare(&corpus_capture(name), t, hostile, &mut failures);
    }
    println!("{compared} packets compared");
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A NetFlow header of `version` with `count` records and `uptime`.
fn netflow(version: u16, count: u16, uptime: u32, records: &[[u8; 52]]) -> Vec<u8> {
    let mut v = version.to_be_bytes().to_vec();
    v.extend_from_slice(&count.to_be_bytes());
    v.extend_from_slice(&uptime.to_be_bytes());
    v.extend_from_slice(&1_700_000_000u32.to_be_bytes());
    v.extend_from_slice(&123_456_789u32.to_be_bytes());
    if version != 1 {
        v.extend_from_slice(&[0, 0, 0x30, 0x39, 1, 2, 0, 0]);
    }
    for r in records {
        v.extend_from_slice(r);
    }
    v
}

/// A flow record (tcpdump reads 48 bytes for v1, 52 for v5 and v6) with
/// protocol `proto`, TCP flags `flags` and every other field telling.
fn record(i: u8, proto: u8, flags: u8) -> [u8; 52] {
    let mut r = [0u8; 52];
    for (k, b) in r.iter_mut().enumerate() {
        *b = i.wrapping_mul(31).wrapping_add(k as u8);
    }
    // Protocol at 38 in every version; TCP flags at 40 (v1) and 37 (v5, v6).
    r[38] = proto;
    r[40] = flags;
    r[37] = flags;
    r
}

/// NetFlow v1, v5 and v6 under `-T cnfp`: records with TCP flags and
/// without, other protocols, a count that tcpdump reads together with
/// half the uptime, an unknown version, and headers and records cut short.
#[test]
fn netflow_prints_what_tcpdump_prints() {
    if tcpdump_and_corpus("tcpdump").is_none() {
        return;
    }
    let recs = [
        record(1, 6, 0x1b),
        record(2, 17, 0),
        record(3, 6, 0),
        record(4, 132, 0xff),
    ];
    let mut payloads = Vec::new();
    for version in [1u16, 5, 6] {
        payloads.push(netflow(version, 4, 0x0000_9abc, &recs));
        payloads.push(netflow(version, 2, 0x0001_2345, &recs[..2]));
        payloads.push(netflow(version, 0, 77, &[]));
        payloads.push(netflow(version, 3, 0, &recs[..2]));
        // A header cut short.
        payloads.push(netflow(version, 1, 0, &[])[..12].to_vec());
    }
    payloads.push(netflow(9, 1, 0, &recs[..1]));
    payloads.push(vec![0]);
    let n = written("cnfp", &payloads, (2055, 9995), Some("cnfp"));
    println!("{n} packets compared");
}

/// Writes `payloads` as UDP datagrams between `ports` into a capture and
/// compares it read as `t`; the packets compared.
fn written(name: &str, payloads: &[Vec<u8>], ports: (u16, u16), t: Option<&str>) -> usize {
    let frames = payloads
        .iter()
        .map(|p| eth(0x0800, &ipv4(17, &udp(ports.0, ports.1, p), &[])))
        .collect();
    written_frames(name, frames, t)
}

/// Writes Ethernet `frames` into a capture and compares it read as `t`.
fn written_frames(name: &str, frames: Vec<Vec<u8>>, t: Option<&str>) -> usize {
    let mut failures = Vec::new();
    let n = with_written(name, LinkType::EN10MB, frames, |cap| {
        compare(cap, t, true, &mut failures)
    });
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    n
}

/// A zephyr notice: the version and fifteen header fields, then `extra`.
fn notice(
    version: &str,
    kind: &str,
    class: &str,
    inst: &str,
    opcode: &str,
    extra: &[&str],
) -> Vec<u8> {
    let fields = [
        version,
        "1d",
        kind,
        "uid",
        "8000",
        "0",
        "0",
        "",
        class,
        inst,
        opcode,
        "sender@REALM",
        "",
        "format",
        "0",
        "0",
        "muid",
    ];
    let mut v = Vec::new();
    for f in fields.iter().chain(extra) {
        v.extend_from_slice(f.as_bytes());
        v.push(0);
    }
    v
}

/// Zephyr notices of each class and opcode `zephyr_print` names, kinds
/// known and not, other versions, a missing field and cut notices.
#[test]
fn zephyr_prints_what_tcpdump_prints() {
    if tcpdump_and_corpus("tcpdump").is_none() {
        return;
    }
    let z = "ZEPH0.2";
    let mut payloads = vec![
        notice(z, "2", "USER_LOCATE", "bob", "USER_HIDE", &[]),
        notice(z, "2", "USER_LOCATE", "bob", "USER_UNHIDE", &[]),
        notice(z, "0x2", "USER_LOCATE", "bob", "LOCATE", &[]),
        notice(z, "5", "ZEPHYR_ADMIN", "", "Brain-Dump", &["NOT_SENT"]),
        notice(z, "5", "ZEPHYR_ADMIN", "", "x", &["SENT"]),
        notice(
            z,
            "1",
            "ZEPHYR_CTL",
            "CLIENT",
            "SUBSCRIBE",
            &["message", "personal", ""],
        ),
        notice(
            z,
            "1",
            "ZEPHYR_CTL",
            "CLIENT",
            "SUBSCRIBE_NODEFS",
            &["c", "i", "r"],
        ),
        notice(z, "1", "ZEPHYR_CTL", "CLIENT", "UNSUBSCRIBE", &["c"]),
        notice(z, "5", "ZEPHYR_CTL", "CLIENT", "UNSUBSCRIBE", &[]),
        notice(z, "1", "ZEPHYR_CTL", "CLIENT", "GIMME", &[]),
        notice(z, "1", "ZEPHYR_CTL", "CLIENT", "GIMMEDEFS", &[]),
        notice(z, "1", "ZEPHYR_CTL", "CLIENT", "CLEARSUB", &[]),
        notice(z, "1", "ZEPHYR_CTL", "CLIENT", "Other", &[]),
        notice(z, "1", "ZEPHYR_CTL", "HM", "BOOT", &[]),
        notice(z, "1", "ZEPHYR_CTL", "REALM", "RLM_UNSUBSCRIBE", &[]),
        notice(z, "1", "ZEPHYR_CTL", "OTHER", "x", &[]),
        notice(z, "4", "HM_CTL", "Inst", "FLUSH", &[]),
        notice(z, "8", "HM_STAT", "HMST_CLIENT", "GIMMESTATS", &[]),
        notice(z, "8", "HM_STAT", "HMST_CLIENT", "other", &[]),
        notice(z, "3", "WG_CTL", "Inst", "Op", &[]),
        notice(z, "3", "LOGIN", "bob", "USER_FLUSH", &[]),
        notice(z, "3", "LOGIN", "bob", "REALM-VISIBLE", &[]),
        notice(z, "-1", "LOGIN", "bob", "other", &[]),
        notice(z, "ff", "message", "personal", "", &[]),
        notice(z, " 7zz", "message", "\x01\u{7f}", "PING", &[]),
        notice("ZEPH0.3", "1", "message", "i", "", &[]),
        notice("NOTZ", "1", "message", "i", "", &[]),
    ];
    let mut cut = notice(z, "2", "message", "personal", "op", &[]);
    cut.truncate(cut.len() - 3);
    payloads.push(cut);
    payloads.push(b"ZEPH0.2".to_vec());
    payloads.push(Vec::new());
    let n = written("zephyr", &payloads, (2104, 2103), None);
    println!("{n} packets compared");
}

/// Telnet commands at the start of segments to and from port 23: options
/// known and not, subnegotiations (authentication, encryption, others),
/// IAC IAC, commands without an option, an unknown command, an
/// unterminated subnegotiation, data after the commands, and segments cut
/// in the middle of one.
#[test]
fn telnet_prints_what_tcpdump_prints() {
    if tcpdump_and_corpus("tcpdump").is_none() {
        return;
    }
    const IAC: u8 = 255;
    let payloads: Vec<Vec<u8>> = vec![
        vec![IAC, 253, 1, IAC, 251, 3, IAC, 254, 39, IAC, 252, 200],
        vec![IAC, 250, 24, 1, IAC, 240],
        vec![IAC, 250, 24, 0, b'x', b't', 0, IAC, 240, b'l', b's'],
        vec![IAC, 250, 37, 2, 8, 1, 2, IAC, 240],
        vec![IAC, 250, 37, 0, 15, IAC, 240, IAC, 250, 37, 9, IAC, 240],
        vec![IAC, 250, 38, 1, 5, 0, IAC, 240, IAC, 250, 38, 3, IAC, 240],
        vec![IAC, 250, 99, 7, 8, IAC, 240, IAC, 250, 31, IAC, 240],
        vec![IAC, IAC, IAC, 241, IAC, 246, IAC, 236, IAC, 100],
        vec![IAC, 250, 24, 1, 2, 3],
        vec![b'h', b'i', IAC, 241],
        vec![IAC, 253],
        vec![IAC],
    ];
    let mut frames = Vec::new();
    for (i, p) in payloads.iter().enumerate() {
        let ports = if i % 2 == 0 { (23, 40000) } else { (40000, 23) };
        let f = eth(0x0800, &ipv4(6, &tcp(ports.0, ports.1, 0x18, p), &[]));
        // Also cut before the last two bytes, inside the commands.
        let mut cut = f.clone();
        cut.truncate(f.len() - 2.min(p.len()));
        frames.push(f);
        frames.push(cut);
    }
    let n = written_frames("telnet", frames, None);
    println!("{n} packets compared");
}

/// An lwres packet: the 28-byte header (length `len`, or the real one when
/// `None`), then `body`.
fn lwres(version: u16, flags: u16, opcode: u32, len: Option<u32>, body: &[u8]) -> Vec<u8> {
    let total = len.unwrap_or(28 + body.len() as u32);
    let mut v = total.to_be_bytes().to_vec();
    v.extend_from_slice(&version.to_be_bytes());
    v.extend_from_slice(&flags.to_be_bytes());
    v.extend_from_slice(&0x1234u32.to_be_bytes());
    v.extend_from_slice(&opcode.to_be_bytes());
    v.extend_from_slice(&7u32.to_be_bytes());
    v.extend_from_slice(&4096u32.to_be_bytes());
    v.extend_from_slice(&[0, 1, 0, 2]);
    v.extend_from_slice(body);
    v
}

/// A 16-bit length, the name and its NUL.
fn lw_name(s: &str) -> Vec<u8> {
    let mut v = (s.len() as u16).to_be_bytes().to_vec();
    v.extend_from_slice(s.as_bytes());
    v.push(0);
    v
}

/// An lwres address: family, length, bytes.
fn lw_addr(family: u32, bytes: &[u8]) -> Vec<u8> {
    let mut v = family.to_be_bytes().to_vec();
    v.extend_from_slice(&(bytes.len() as u16).to_be_bytes());
    v.extend_from_slice(bytes);
    v
}

/// lwres queries and responses of each opcode, with `-vvv` too: names,
/// aliases, IPv4, IPv6 and other addresses, short addresses, extra bytes,
/// wrong lengths, other versions and opcodes, and cut packets.
#[test]
fn lwres_prints_what_tcpdump_prints() {
    if tcpdump_and_corpus("tcpdump").is_none() {
        return;
    }
    let cat = |parts: &[&[u8]]| parts.concat();
    let v6 = [0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    let gabn_q = cat(&[&[0, 0, 0, 1], &[0, 0, 0, 3], &lw_name("www.example.com")]);
    let gabn_r = cat(&[
        &[0, 0, 0, 0, 0, 2, 0, 3],
        &lw_name("real.example.com"),
        &lw_name("a1"),
        &lw_name("a2"),
        &lw_addr(1, &[192, 0, 2, 1]),
        &lw_addr(2, &v6),
        &lw_addr(9, &[1, 2, 3]),
    ]);
    let gnba_r = cat(&[
        &[0, 0, 0, 0, 0, 1],
        &lw_name("host.example")[..],
        &lw_name("alias"),
    ]);
    let grbn_q = cat(&[&[0, 0, 0, 0, 0, 3, 0, 16], &lw_name("txt.example")]);
    let grbn_r = cat(&[
        &[0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0x51, 0x80, 0, 2, 0, 1],
        &lw_name("a.example"),
        &[0, 2, 0xab, 0xcd, 0, 1, 0xef, 0, 0],
    ]);
    let mut payloads = vec![
        lwres(0, 0, 0, None, &[]),
        lwres(0, 1, 0, Some(40), &[]),
        lwres(0, 0x10, 0x0001_0001, None, &gabn_q),
        lwres(
            0,
            0,
            0x0001_0001,
            None,
            &cat(&[&[0, 0, 0, 0, 0, 0, 0, 8], &lw_name("v")]),
        ),
        lwres(0, 1, 0x0001_0001, None, &gabn_r),
        lwres(
            0,
            0,
            0x0001_0002,
            None,
            &cat(&[&[0, 0, 0, 2], &lw_addr(1, &[10, 0, 0, 1])]),
        ),
        lwres(
            0,
            0,
            0x0001_0002,
            None,
            &cat(&[&[0, 0, 0, 2], &lw_addr(2, &[1, 2])]),
        ),
        lwres(0, 1, 0x0001_0002, None, &gnba_r),
        lwres(0, 0, 0x0001_0003, None, &grbn_q),
        lwres(0, 1, 0x0001_0003, None, &grbn_r),
        lwres(0, 0, 0x0002_0000, None, &[1, 2, 3]),
        lwres(3, 0, 0, Some(28), &[9, 9]),
        lwres(0, 1, 0x0001_0001, Some(20), &gabn_r),
        lwres(
            0,
            0,
            0x0001_0001,
            None,
            &cat(&[&gabn_q[..8], &[0, 3, b'a', b'b', b'c', b'x']]),
        ),
    ];
    let mut cut = lwres(0, 1, 0x0001_0001, None, &gabn_r);
    cut.truncate(60);
    payloads.push(cut);
    payloads.push(vec![0; 20]);
    let n = written("lwres", &payloads, (921, 921), None);
    println!("{n} packets compared");
}

/// Random payloads for every printer of this file, under every `-T` type
/// and verbosity, whole and cut short: nothing panics and every packet gets
/// a summary. (Needs no tcpdump.)
#[test]
fn random_payloads_never_panic() {
    use netsift_print::{Summarizer, SummaryOptions};
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut types: Vec<Option<PacketType>> =
        PacketType::ALL.iter().map(|&(_, t)| Some(t)).collect();
    types.push(None);
    for round in 0..300 {
        let len = (next() % 96) as usize;
        let mut p: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        // Often a plausible start: IAC, a version word, ZEPH, PGM's ODATA.
        match round % 5 {
            0 if len > 2 => p[0] = 255,
            1 if len > 2 => p[..2].copy_from_slice(&[0, 5]),
            2 if len > 8 => p[..7].copy_from_slice(b"ZEPH0.2"),
            3 if len > 16 => p[4] = 4,
            _ => {}
        }
        let frames = [
            (
                LinkType::EN10MB,
                eth(0x0800, &ipv4(17, &udp(921, 2104, &p), &[])),
            ),
            (
                LinkType::EN10MB,
                eth(0x0800, &ipv4(17, &udp(4000, 3456, &p), &[])),
            ),
            (
                LinkType::EN10MB,
                eth(0x0800, &ipv4(6, &tcp(23, 4000, 0x18, &p), &[])),
            ),
            (LinkType::EN10MB, eth(0x0800, &ipv4(112, &p, &[]))),
            (LinkType::EN10MB, eth(0x0800, &ipv4(113, &p, &[]))),
            (LinkType::PPP, [&[0xff, 0x03, 0xc0, 0x23][..], &p].concat()),
            (LinkType::PPP, [&[0xff, 0x03, 0x00, 0x3d][..], &p].concat()),
        ];
        let t = types[round % types.len()];
        for verbose in 0..4 {
            let mut s = Summarizer::with_options(SummaryOptions {
                verbose,
                packet_type: t,
                ..SummaryOptions::default()
            });
            for (lt, f) in &frames {
                for n in [f.len(), f.len() / 2, f.len().saturating_sub(3)] {
                    let line = s.summarize(*lt, &f[..n], f.len() as u32);
                    assert!(!line.is_empty(), "{t:?} {verbose}: nothing for {f:02x?}");
                }
            }
        }
    }
}

/// An IGRP message: version 1 and `op`, edition, AS 100, the three route
/// counts, a checksum, then `routes` entries of 14 bytes.
fn igrp(op: u8, counts: [u16; 3], routes: &[[u8; 14]]) -> Vec<u8> {
    let mut v = vec![0x10 | op, 7, 0, 100];
    for c in counts {
        v.extend_from_slice(&c.to_be_bytes());
    }
    v.extend_from_slice(&[0xab, 0xcd]);
    for r in routes {
        v.extend_from_slice(r);
    }
    v
}

/// IGRP (IP protocol 9): updates with interior, system and exterior
/// routes, a request, an unknown opcode, counts that do not match the
/// routes (extra bytes, missing routes), a zero bandwidth and a metric past
/// 24 bits, and messages cut short.
#[test]
fn igrp_prints_what_tcpdump_prints() {
    if tcpdump_and_corpus("tcpdump").is_none() {
        return;
    }
    let r = |net: [u8; 3], dly: u32, bw: u32, hops: u8| {
        let mut e = [0u8; 14];
        e[..3].copy_from_slice(&net);
        e[3..6].copy_from_slice(&dly.to_be_bytes()[1..]);
        e[6..9].copy_from_slice(&bw.to_be_bytes()[1..]);
        e[9..11].copy_from_slice(&1500u16.to_be_bytes());
        e[11] = 255;
        e[12] = 1;
        e[13] = hops;
        e
    };
    let a = r([10, 1, 2], 2000, 1000, 0);
    let b = r([192, 168, 7], 0xff_fff0, 0xff_fff0, 3);
    let c = r([172, 16, 0], 100, 0, 15);
    let messages = vec![
        igrp(1, [1, 1, 1], &[a, b, c]),
        igrp(2, [0, 0, 0], &[]),
        igrp(5, [0, 1, 0], &[b]),
        igrp(1, [1, 0, 0], &[a, b]),
        igrp(1, [2, 1, 0], &[a]),
        igrp(1, [0, 0, 2], &[c, c]),
    ];
    let mut frames = Vec::new();
    for m in &messages {
        let f = eth(0x0800, &ipv4(9, m, &[]));
        let mut cut = f.clone();
        cut.truncate(f.len() - 5.min(m.len()));
        frames.push(f);
        frames.push(cut);
    }
    let n = written_frames("igrp", frames, None);
    println!("{n} packets compared");
}

/// A RIPng message: command, version, two reserved bytes, then `entries`
/// (prefix, tag, prefix length, metric).
fn ripng(cmd: u8, vers: u8, entries: &[([u8; 16], u16, u8, u8)], extra: &[u8]) -> Vec<u8> {
    let mut v = vec![cmd, vers, 0, 0];
    for (prefix, tag, plen, metric) in entries {
        v.extend_from_slice(prefix);
        v.extend_from_slice(&tag.to_be_bytes());
        v.extend_from_slice(&[*plen, *metric]);
    }
    v.extend_from_slice(extra);
    v
}

/// RIPng on port 521 over IPv6 and IPv4: a whole-table request, requests
/// and responses with tags and metrics, a length that is not a whole number
/// of entries, a bad version, an unknown command, a header cut short, and
/// datagrams cut inside an entry.
#[test]
fn ripng_prints_what_tcpdump_prints() {
    if tcpdump_and_corpus("tcpdump").is_none() {
        return;
    }
    let mut net = [0u8; 16];
    net[..4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
    let mut other = net;
    other[5] = 7;
    let messages = [
        ripng(1, 1, &[([0; 16], 0, 0, 16)], &[]),
        ripng(1, 1, &[(net, 0, 32, 16), (other, 5, 48, 1)], &[]),
        ripng(2, 1, &[(net, 0, 32, 1), (other, 300, 64, 0)], &[]),
        ripng(2, 1, &[(net, 9, 32, 15)], &[1, 2, 3]),
        ripng(1, 1, &[([0; 16], 0, 0, 16)], &[0]),
        ripng(2, 2, &[(net, 0, 32, 1)], &[]),
        ripng(7, 1, &[], &[]),
        vec![2, 1],
    ];
    let mut frames = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let ports = if i % 2 == 0 { (521, 521) } else { (40000, 521) };
        for f in [
            eth(0x86dd, &ipv6(17, &udp(ports.0, ports.1, m))),
            eth(0x0800, &ipv4(17, &udp(ports.0, ports.1, m), &[])),
        ] {
            let mut cut = f.clone();
            cut.truncate(f.len() - 7.min(m.len()));
            frames.push(f);
            frames.push(cut);
        }
    }
    let n = written_frames("ripng", frames, None);
    println!("{n} packets compared");
}
