//! Hand-built pcap and pcapng files: round trips, both byte orders, the corner
//! cases of libpcap's rules. Where tcpdump is installed every file is also checked
//! against libpcap (`tcpdump -r FILE -w OUT`).

mod common;

use common::*;
use netsift_pcapio::{ErrorKind, Format, PcapWriter, RawTs, Reader, TsPrecision};
use netsift_wire::LinkType;

/// Little- or big-endian field encoder.
#[derive(Clone, Copy)]
struct E(bool);

impl E {
    fn u16(self, v: u16) -> [u8; 2] {
        if self.0 {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
    fn u32(self, v: u32) -> [u8; 4] {
        if self.0 {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
    fn u64(self, v: u64) -> [u8; 8] {
        if self.0 {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
}

/// Builds a pcap file by hand.
struct Pcap {
    e: E,
    out: Vec<u8>,
}

impl Pcap {
    fn new(big: bool, magic: u32, major: u16, minor: u16, snaplen: u32, linktype: u32) -> Self {
        let e = E(big);
        let mut out = Vec::new();
        out.extend(e.u32(magic));
        out.extend(e.u16(major));
        out.extend(e.u16(minor));
        out.extend([0; 8]);
        out.extend(e.u32(snaplen));
        out.extend(e.u32(linktype));
        Pcap { e, out }
    }

    fn rec(mut self, sec: u32, frac: u32, caplen: u32, len: u32, data: &[u8]) -> Self {
        let e = self.e;
        self.out.extend(e.u32(sec));
        self.out.extend(e.u32(frac));
        self.out.extend(e.u32(caplen));
        self.out.extend(e.u32(len));
        self.out.extend(data);
        self
    }
}

/// Builds a pcapng file by hand.
struct Ng {
    e: E,
    out: Vec<u8>,
}

fn opt(e: E, code: u16, val: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend(e.u16(code));
    v.extend(e.u16(val.len() as u16));
    v.extend(val);
    while v.len() & 3 != 0 {
        v.push(0);
    }
    v
}

impl Ng {
    fn new(big: bool) -> Self {
        Ng {
            e: E(big),
            out: Vec::new(),
        }
    }

    fn block(mut self, btype: u32, body: &[u8]) -> Self {
        let mut body = body.to_vec();
        while body.len() & 3 != 0 {
            body.push(0);
        }
        let total = (body.len() + 12) as u32;
        let e = self.e;
        self.out.extend(e.u32(btype));
        self.out.extend(e.u32(total));
        self.out.extend(body);
        self.out.extend(e.u32(total));
        self
    }

    fn shb(self, major: u16, minor: u16) -> Self {
        let e = self.e;
        let mut b = Vec::new();
        b.extend(e.u32(0x1a2b_3c4d));
        b.extend(e.u16(major));
        b.extend(e.u16(minor));
        b.extend(e.u64(u64::MAX));
        b.extend(opt(e, 4, b"netsift test"));
        b.extend(opt(e, 0, b""));
        self.block(0x0a0d_0d0a, &b)
    }

    fn idb(self, linktype: u16, snaplen: u32, opts: &[(u16, &[u8])]) -> Self {
        let e = self.e;
        let mut b = Vec::new();
        b.extend(e.u16(linktype));
        b.extend(e.u16(0));
        b.extend(e.u32(snaplen));
        for (c, v) in opts {
            b.extend(opt(e, *c, v));
        }
        if !opts.is_empty() {
            b.extend(opt(e, 0, b""));
        }
        self.block(1, &b)
    }

    fn epb(self, iface: u32, ts: u64, data: &[u8], len: u32) -> Self {
        let e = self.e;
        let mut b = Vec::new();
        b.extend(e.u32(iface));
        b.extend(e.u32((ts >> 32) as u32));
        b.extend(e.u32(ts as u32));
        b.extend(e.u32(data.len() as u32));
        b.extend(e.u32(len));
        b.extend(data);
        while b.len() & 3 != 0 {
            b.push(0);
        }
        b.extend(opt(e, 1, b"a comment"));
        b.extend(opt(e, 0, b""));
        self.block(6, &b)
    }

    fn spb(self, len: u32, data: &[u8]) -> Self {
        let e = self.e;
        let mut b = Vec::new();
        b.extend(e.u32(len));
        b.extend(data);
        self.block(3, &b)
    }

    fn pb(self, iface: u16, ts: u64, data: &[u8], len: u32) -> Self {
        let e = self.e;
        let mut b = Vec::new();
        b.extend(e.u16(iface));
        b.extend(e.u16(0));
        b.extend(e.u32((ts >> 32) as u32));
        b.extend(e.u32(ts as u32));
        b.extend(e.u32(data.len() as u32));
        b.extend(e.u32(len));
        b.extend(data);
        self.block(2, &b)
    }
}

fn frame(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect()
}

/// Checks `bytes` against libpcap if tcpdump is there; returns what we read.
fn checked(name: &str, bytes: &[u8]) -> ReadAll {
    if have_tcpdump_quiet() {
        let dir = scratch(&format!("syn-{name}"));
        let f = dir.join("in.cap");
        std::fs::write(&f, bytes).unwrap();
        let c = compare_with_tcpdump(name, &f, &dir);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(c.mismatches.is_empty(), "{:#?}", c.mismatches);
        return c.ours;
    }
    read_all(bytes)
}

fn have_tcpdump_quiet() -> bool {
    static HAVE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAVE.get_or_init(have_tcpdump)
}

fn err_of(r: &ReadAll) -> &netsift_pcapio::Error {
    r.end.as_ref().expect_err("expected an error")
}

#[test]
fn writer_round_trip_both_precisions() {
    for prec in [TsPrecision::Micro, TsPrecision::Nano] {
        let mut w = PcapWriter::new(Vec::new(), LinkType::EN10MB, 65535, prec).unwrap();
        let unit = prec.units_per_sec();
        for i in 0..5u32 {
            let d = frame(60 + i as usize * 100, i as u8);
            w.write_packet(1_700_000_000 + i, unit - 1 - i, &d, 2000 + i)
                .unwrap();
        }
        let bytes = w.into_inner().unwrap();
        let r = checked(&format!("rt-{prec:?}"), &bytes);
        r.end.as_ref().unwrap();
        assert_eq!(r.packets.len(), 5);
        for (i, p) in r.packets.iter().enumerate() {
            let i32_ = i as u32;
            assert_eq!(p.data, frame(60 + i * 100, i as u8));
            assert_eq!(p.caplen as usize, p.data.len());
            assert_eq!(p.orig_len, 2000 + i32_);
            assert_eq!(p.ts_sec, u64::from(1_700_000_000 + i32_));
            let frac = unit - 1 - i32_;
            let ns = if prec == TsPrecision::Micro {
                frac * 1000
            } else {
                frac
            };
            assert_eq!(p.ts_nsec, ns);
        }
        let rd = Reader::new(&bytes[..]).unwrap();
        assert_eq!(rd.precision(), prec);
        assert_eq!(rd.format(), Format::Pcap);
        assert_eq!(rd.linktype(), LinkType::EN10MB);
        assert_eq!(rd.snaplen(), 65535);
        assert_eq!(rd.offset(), 24);

        // Re-writing read packets with `write` gives the same file back.
        let mut rd = Reader::new(&bytes[..]).unwrap();
        let mut w = PcapWriter::new(Vec::new(), rd.linktype(), rd.snaplen(), prec).unwrap();
        while let Some(p) = rd.next_packet().unwrap() {
            w.write(&p).unwrap();
        }
        assert_eq!(rd.offset(), bytes.len() as u64);
        assert_eq!(w.into_inner().unwrap(), bytes);
    }
}

#[test]
fn nano_to_micro_truncates() {
    let mut w = PcapWriter::new(Vec::new(), LinkType::RAW, 262144, TsPrecision::Nano).unwrap();
    w.write_packet(10, 999_999_999, &[0x45; 20], 20).unwrap();
    let bytes = w.into_inner().unwrap();
    let mut rd = Reader::new(&bytes[..]).unwrap();
    let mut out = PcapWriter::new(Vec::new(), LinkType::RAW, 262144, TsPrecision::Micro).unwrap();
    let p = rd.next_packet().unwrap().unwrap();
    assert_eq!((p.ts_sec, p.ts_nsec), (10, 999_999_999));
    out.write(&p).unwrap();
    let o = out.into_inner().unwrap();
    assert_eq!(&o[24..32], &[10, 0, 0, 0, 0x3f, 0x42, 0x0f, 0]);
}

#[test]
fn big_endian_pcap_by_hand() {
    for (magic, nano) in [(0xa1b2_c3d4u32, false), (0xa1b2_3c4d, true)] {
        let bytes = Pcap::new(true, magic, 2, 4, 1500, 1)
            .rec(0x6000_0000, 123_456, 14, 60, &frame(14, 1))
            .rec(0x6000_0001, 7, 20, 20, &frame(20, 2))
            .out;
        assert_eq!(&bytes[..4], &magic.to_be_bytes());
        let r = checked(&format!("be-{nano}"), &bytes);
        r.end.as_ref().unwrap();
        assert_eq!(r.packets.len(), 2);
        let p = &r.packets[0];
        assert_eq!((p.caplen, p.orig_len), (14, 60));
        assert_eq!(p.data, frame(14, 1));
        assert_eq!(p.ts_sec, 0x6000_0000);
        assert_eq!(p.ts_nsec, if nano { 123_456 } else { 123_456_000 });
        let rd = Reader::new(&bytes[..]).unwrap();
        assert!(rd.is_big_endian());
        assert_eq!(rd.snaplen(), 1500);
        assert_eq!(
            rd.precision(),
            if nano {
                TsPrecision::Nano
            } else {
                TsPrecision::Micro
            }
        );
    }
}

#[test]
fn pcap_caplen_above_snaplen_is_cut_to_snaplen() {
    let bytes = Pcap::new(false, 0xa1b2_c3d4, 2, 4, 10, 1)
        .rec(1, 2, 30, 40, &frame(30, 3))
        .rec(3, 4, 5, 5, &frame(5, 4))
        .out;
    let r = checked("cut", &bytes);
    r.end.as_ref().unwrap();
    assert_eq!(r.packets.len(), 2);
    assert_eq!(r.packets[0].caplen, 10);
    assert_eq!(r.packets[0].orig_len, 40);
    assert_eq!(r.packets[0].data, frame(30, 3)[..10].to_vec());
    assert_eq!(r.packets[1].data, frame(5, 4));
}

#[test]
fn pcap_caplen_above_link_maximum_is_refused() {
    // Snapshot length 0 means 262144: a 262145-byte record is above both.
    let big = vec![0u8; 262_145];
    let bytes = Pcap::new(false, 0xa1b2_c3d4, 2, 4, 0, 1)
        .rec(1, 0, 60, 60, &frame(60, 0))
        .rec(1, 0, 262_145, 262_145, &big)
        .out;
    let r = checked("max1", &bytes);
    assert_eq!(r.packets.len(), 1);
    let e = err_of(&r);
    assert!(matches!(
        e.kind(),
        ErrorKind::CaplenTooLarge {
            caplen: 262_145,
            limit: 262_144,
            snaplen: true
        }
    ));
    assert_eq!(e.offset(), 24 + 16 + 60);
    // With a larger snapshot length the limit is the link type's maximum.
    let bytes = Pcap::new(false, 0xa1b2_c3d4, 2, 4, 1_000_000, 1)
        .rec(1, 0, 262_145, 262_145, &big)
        .out;
    let r = checked("max2", &bytes);
    assert!(err_of(&r)
        .to_string()
        .starts_with("invalid packet capture length 262145, bigger than maximum of 262144"));
    // DBUS allows 128 MiB.
    let bytes = Pcap::new(false, 0xa1b2_c3d4, 2, 4, 0, 231)
        .rec(1, 0, 262_145, 262_145, &big)
        .out;
    let r = read_all(&bytes);
    r.end.as_ref().unwrap();
    assert_eq!(r.packets[0].caplen, 262_145);
}

#[test]
fn pcap_old_versions_swap_lengths() {
    // 2.2: always swapped.
    let bytes = Pcap::new(false, 0xa1b2_c3d4, 2, 2, 65535, 1)
        .rec(1, 0, 60, 20, &frame(20, 0))
        .out;
    let r = checked("v22", &bytes);
    r.end.as_ref().unwrap();
    assert_eq!((r.packets[0].caplen, r.packets[0].orig_len), (20, 60));
    // 2.3: swapped only if caplen > len.
    let bytes = Pcap::new(false, 0xa1b2_c3d4, 2, 3, 65535, 1)
        .rec(1, 0, 60, 20, &frame(20, 0))
        .rec(1, 0, 20, 60, &frame(20, 0))
        .out;
    let r = checked("v23", &bytes);
    r.end.as_ref().unwrap();
    assert_eq!((r.packets[0].caplen, r.packets[0].orig_len), (20, 60));
    assert_eq!((r.packets[1].caplen, r.packets[1].orig_len), (20, 60));
}

#[test]
fn pcap_kuznetzov_format() {
    let e = E(false);
    let mut bytes = Pcap::new(false, 0xa1b2_cd34, 2, 4, 100, 1).out;
    for i in 0..2u8 {
        bytes.extend(e.u32(5));
        bytes.extend(e.u32(6));
        bytes.extend(e.u32(30));
        bytes.extend(e.u32(30));
        bytes.extend([9u8; 8]); // ifindex, protocol, pkt_type, pad
        bytes.extend(frame(30, i));
    }
    let r = checked("kuz", &bytes);
    r.end.as_ref().unwrap();
    assert_eq!(r.packets.len(), 2);
    assert_eq!(r.packets[1].data, frame(30, 1));
    let rd = Reader::new(&bytes[..]).unwrap();
    assert!(rd.is_kuznetzov());
    assert_eq!(rd.snaplen(), 114);
}

#[test]
fn pcap_header_faults() {
    let r = read_all(b"");
    assert!(matches!(err_of(&r).kind(), ErrorKind::Empty));
    assert!(err_of(&r).to_string().contains("empty file"));

    let r = read_all(b"\xd4\xc3");
    assert!(err_of(&r).is_truncation());

    let bytes = Pcap::new(false, 0xa1b2_c3d4, 2, 4, 100, 1).out;
    let r = read_all(&bytes[..10]);
    assert_eq!(
        err_of(&r).to_string(),
        "truncated pcap file header: needs 24 bytes but the file ends after 10 (at byte offset 0)"
    );

    let r = read_all(b"GIF89a....................");
    assert_eq!(
        err_of(&r).to_string(),
        "unknown file format (magic 0x47494638): not a pcap or pcapng capture (at byte offset 0)"
    );

    for (maj, min) in [(1, 4), (2, 5), (3, 0), (543, 1)] {
        let bytes = Pcap::new(false, 0xa1b2_c3d4, maj, min, 100, 1).out;
        let r = checked(&format!("ver{maj}.{min}"), &bytes);
        assert_eq!(err_of(&r).offset(), 4);
    }
    let bytes = Pcap::new(true, 0xa1b2_c3d4, 543, 0, 100, 1)
        .rec(1, 0, 60, 20, &frame(20, 0))
        .out;
    let r = checked("dgux", &bytes);
    assert_eq!((r.packets[0].caplen, r.packets[0].orig_len), (20, 60));

    // FCS bits 26-31 are kept apart from the link type, and tcpdump -w keeps them.
    let bytes = Pcap::new(false, 0xa1b2_c3d4, 2, 4, 100, 0x1400_0001)
        .rec(1, 0, 4, 4, &[1, 2, 3, 4])
        .out;
    let r = checked("fcs", &bytes);
    r.end.as_ref().unwrap();
    let rd = Reader::new(&bytes[..]).unwrap();
    assert_eq!(rd.linktype(), LinkType::EN10MB);
    assert_eq!(rd.linktype_field(), 0x1400_0001);
    assert_eq!(
        rd.tcpdump_dump_header(false).unwrap().linktype,
        LinkType(0x1400_0001)
    );
}

#[test]
fn pcap_truncated_packet_message() {
    let bytes = Pcap::new(false, 0xa1b2_c3d4, 2, 4, 65535, 1)
        .rec(1, 0, 60, 60, &frame(60, 0))
        .rec(2, 0, 1514, 1514, &frame(200, 0))
        .out;
    let r = checked("trunc", &bytes);
    assert_eq!(r.packets.len(), 1);
    assert_eq!(
        err_of(&r).to_string(),
        "truncated packet record: header says 1514 bytes but the file ends after 200 (at byte offset 100)"
    );
}

#[test]
fn malformed_time_stamps_kept_for_libpcap_compat() {
    let bytes = Pcap::new(false, 0xa1b2_c3d4, 2, 4, 65535, 1)
        .rec(0x8000_0000, 2_000_000, 4, 4, &[0; 4])
        .rec(5, 0x8000_0000, 4, 4, &[0; 4])
        .out;
    let r = checked("badts", &bytes);
    let p = &r.packets[0];
    // Packet time stamps are normalised and the seconds unsigned ...
    assert_eq!((p.ts_sec, p.ts_nsec), (0x8000_0002, 0));
    // ... the raw fields give libpcap's signed view.
    assert_eq!(
        p.raw.libpcap_timeval(TsPrecision::Micro),
        (-0x8000_0000, 2_000_000)
    );
    assert_eq!(
        r.packets[1].raw.libpcap_timeval(TsPrecision::Nano),
        (5, -0x8000_0000 * 1000)
    );
}

fn tsresol_file(big: bool, resol: u8, ts: u64, tsoffset: Option<u64>) -> Vec<u8> {
    let e = E(big);
    let off = tsoffset.map(|o| e.u64(o));
    let mut opts: Vec<(u16, &[u8])> = vec![(2, b"eth0"), (9, std::slice::from_ref(&resol))];
    if let Some(o) = &off {
        opts.push((14, o));
    }
    Ng::new(big)
        .shb(1, 0)
        .idb(1, 0, &opts)
        .epb(0, ts, &frame(60, 7), 60)
        .out
}

#[test]
fn pcapng_time_stamp_resolutions() {
    let cases: &[(u8, u64, u64, u32)] = &[
        (6, 1_700_000_000_123_456, 1_700_000_000, 123_456_000),
        (9, 1_700_000_000_123_456_789, 1_700_000_000, 123_456_789),
        (3, 1_700_000_000_123, 1_700_000_000, 123_000_000),
        (0, 1_700_000_000, 1_700_000_000, 0),
        (12, 17_000_000_001_234_567_890, 17_000_000, 1_234_567),
        (19, u64::MAX, 1, 844_674_407),
        (
            0x80 | 10,
            (1_700_000_000 << 10) | 512,
            1_700_000_000,
            500_000_000,
        ),
        (0x80 | 20, (5 << 20) | 1, 5, 953),
        (0x80 | 63, (1 << 63) | 1, 1, 0),
        (0x80, 77, 77, 0),
    ];
    for &(resol, ts, sec, nsec) in cases {
        for big in [false, true] {
            let bytes = tsresol_file(big, resol, ts, None);
            let r = checked(&format!("res{resol}-{big}"), &bytes);
            r.end.as_ref().unwrap();
            let p = &r.packets[0];
            assert_eq!((p.ts_sec, p.ts_nsec), (sec, nsec), "resol {resol:#x}");
            let rd = Reader::new(&bytes[..]).unwrap();
            let fine =
                (resol & 0x80 == 0 && resol > 6) || (resol & 0x80 != 0 && resol & 0x7f >= 20);
            assert_eq!(
                rd.precision(),
                if fine {
                    TsPrecision::Nano
                } else {
                    TsPrecision::Micro
                }
            );
        }
    }
    // if_tsoffset adds seconds.
    let bytes = tsresol_file(false, 6, 1_000_001, Some(1_600_000_000));
    let r = checked("tsoffset", &bytes);
    assert_eq!(
        (r.packets[0].ts_sec, r.packets[0].ts_nsec),
        (1_600_000_001, 1000)
    );
    // Resolutions libpcap refuses.
    for resol in [20u8, 0x80 | 64] {
        let bytes = tsresol_file(false, resol, 1, None);
        let r = checked(&format!("badres{resol}"), &bytes);
        assert!(matches!(err_of(&r).kind(), ErrorKind::BadOption(_)));
    }
}

#[test]
fn pcapng_packet_block_kinds_and_interfaces() {
    for big in [false, true] {
        let nine: &[u8] = &[9];
        let bytes = Ng::new(big)
            .shb(1, 0)
            .block(0x0000_0bad, &[1, 2, 3, 4, 5]) // unknown: skipped
            .idb(1, 100, &[])
            .idb(1, 100, &[(9, nine)])
            .epb(0, 1_000_000, &frame(60, 1), 60)
            .epb(1, 2_000_000_001, &frame(61, 2), 70)
            .spb(150, &frame(100, 3)) // caplen = min(len, snaplen 100)
            .spb(20, &frame(20, 4))
            .pb(1, 3_000_000_000, &frame(40, 5), 40)
            .block(5, &[0; 16]) // ISB: skipped
            .out;
        let r = checked(&format!("kinds-{big}"), &bytes);
        r.end.as_ref().unwrap();
        let got: Vec<(u32, u32, u32, u64, u32)> = r
            .packets
            .iter()
            .map(|p| (p.interface, p.caplen, p.orig_len, p.ts_sec, p.ts_nsec))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, 60, 60, 1, 0),
                (1, 61, 70, 2, 1),
                (0, 100, 150, 0, 0),
                (0, 20, 20, 0, 0),
                (1, 40, 40, 3, 0),
            ]
        );
        assert_eq!(r.packets[2].data, frame(100, 3));
        let mut rd = Reader::new(&bytes[..]).unwrap();
        assert_eq!(rd.format(), Format::PcapNg);
        assert_eq!(rd.precision(), TsPrecision::Micro);
        while rd.next_packet().unwrap().is_some() {}
        // The second interface has ns resolution.
        assert_eq!(rd.precision(), TsPrecision::Nano);
        assert_eq!(rd.offset(), bytes.len() as u64);
    }
}

#[test]
fn pcapng_sections() {
    // A new section forgets its interfaces.
    let bytes = Ng::new(false)
        .shb(1, 0)
        .idb(1, 0, &[])
        .idb(1, 0, &[])
        .epb(1, 1, &frame(10, 0), 10)
        .shb(1, 0)
        .idb(1, 0, &[])
        .epb(0, 2, &frame(10, 0), 10)
        .epb(1, 3, &frame(10, 0), 10)
        .out;
    let r = checked("sections", &bytes);
    assert_eq!(r.packets.len(), 2);
    assert!(matches!(
        err_of(&r).kind(),
        ErrorKind::UnknownInterface { id: 1 }
    ));
    // A later section may be 1.1 (libpcap checks only the major version there) ...
    let bytes = Ng::new(false)
        .shb(1, 0)
        .idb(1, 0, &[])
        .shb(1, 1)
        .idb(1, 0, &[])
        .epb(0, 2, &frame(10, 0), 10)
        .out;
    checked("sect11", &bytes).end.unwrap();
    // ... but not 2.0, nor the other byte order.
    let bytes = Ng::new(false).shb(1, 0).idb(1, 0, &[]).shb(2, 0).out;
    assert!(err_of(&checked("sect20", &bytes))
        .to_string()
        .contains("version 2.0"));
    // A big-endian SHB after a little-endian section: its length is misread, so
    // the block is refused before its byte-order magic is looked at ...
    let mut bytes = Ng::new(false).shb(1, 0).idb(1, 0, &[]).out;
    bytes.extend(Ng::new(true).shb(1, 0).out);
    assert!(checked("sectbo1", &bytes).end.is_err());
    // ... unless the length reads the same both ways (0x00010100).
    let be = E(true);
    let mut body = Vec::new();
    body.extend(be.u32(0x1a2b_3c4d));
    body.extend(be.u16(1));
    body.extend(be.u16(0));
    body.extend(be.u64(u64::MAX));
    body.extend(opt(be, 1, &vec![b'x'; 32_000]));
    body.extend(opt(be, 1, &vec![b'y'; 33_756]));
    let shb = Ng::new(true).block(0x0a0d_0d0a, &body).out;
    assert_eq!(shb.len(), 0x0001_0100);
    let mut bytes = Ng::new(false).shb(1, 0).idb(1, 0, &[]).out;
    bytes.extend(shb);
    assert!(matches!(
        err_of(&checked("sectbo2", &bytes)).kind(),
        ErrorKind::ByteOrderChanged
    ));
}

#[test]
fn pcapng_interface_mismatches() {
    let bytes = Ng::new(false)
        .shb(1, 0)
        .idb(1, 0, &[])
        .epb(0, 1, &frame(10, 0), 10)
        .idb(113, 0, &[])
        .epb(1, 1, &frame(10, 0), 10)
        .out;
    let r = checked("ltmix", &bytes);
    assert_eq!(r.packets.len(), 1);
    let e = err_of(&r);
    assert!(e
        .to_string()
        .starts_with("an interface has a type 113 different from the type of the first interface"));
    let prefix = Ng::new(false)
        .shb(1, 0)
        .idb(1, 0, &[])
        .epb(0, 1, &frame(10, 0), 10)
        .out;
    assert_eq!(e.offset(), prefix.len() as u64);

    let bytes = Ng::new(false)
        .shb(1, 0)
        .idb(1, 0, &[])
        .idb(1, 65535, &[])
        .out;
    assert!(matches!(
        err_of(&checked("snapmix", &bytes)).kind(),
        ErrorKind::SnaplenMismatch { .. }
    ));
    // 0 and 262144 are the same adjusted snapshot length.
    let bytes = Ng::new(false)
        .shb(1, 0)
        .idb(1, 0, &[])
        .idb(1, 262_144, &[])
        .out;
    checked("snapadj", &bytes).end.unwrap();
    // libpcap compares a later interface's LINKTYPE_ with the first one's DLT_,
    // so two LINKTYPE_RAW (101, DLT 12) interfaces are refused.
    let bytes = Ng::new(false)
        .shb(1, 0)
        .idb(101, 0, &[])
        .idb(101, 0, &[])
        .out;
    assert!(matches!(
        err_of(&checked("rawraw", &bytes)).kind(),
        ErrorKind::LinkTypeMismatch { .. }
    ));
}

#[test]
fn pcapng_structure_faults() {
    let base = Ng::new(false).shb(1, 0).idb(1, 0, &[]).out;
    let off = base.len() as u64;
    // Total length 7.
    let mut b = base.clone();
    b.extend([6, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0]);
    let r = checked("len7", &b);
    assert_eq!(
        err_of(&r).to_string(),
        format!("bad pcapng block total length 7 (at byte offset {off})")
    );
    // Not a multiple of 4.
    let mut b = base.clone();
    b.extend([6, 0, 0, 0, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert!(matches!(
        err_of(&checked("len14", &b)).kind(),
        ErrorKind::BadBlockLength { len: 14 }
    ));
    // Trailer mismatch.
    let mut b = Ng::new(false)
        .shb(1, 0)
        .idb(1, 0, &[])
        .epb(0, 0, &[1; 8], 8)
        .out;
    let n = b.len();
    b[n - 1] = 1;
    assert!(matches!(
        err_of(&checked("trailer", &b)).kind(),
        ErrorKind::TrailerMismatch { .. }
    ));
    // EPB whose caplen runs past its block.
    let mut b = base.clone();
    let e = E(false);
    let mut body = Vec::new();
    body.extend(e.u32(0));
    body.extend(e.u32(0));
    body.extend(e.u32(0));
    body.extend(e.u32(100));
    body.extend(e.u32(100));
    body.extend([0; 8]);
    b.extend(Ng::new(false).block(6, &body).out);
    assert!(matches!(
        err_of(&checked("epbshort", &b)).kind(),
        ErrorKind::BlockTooShort { block_type: 6 }
    ));
    // caplen above the snapshot length.
    let b = Ng::new(false)
        .shb(1, 0)
        .idb(1, 10, &[])
        .epb(0, 0, &[1; 11], 11)
        .out;
    assert!(matches!(
        err_of(&checked("epbsnap", &b)).kind(),
        ErrorKind::CaplenTooLarge {
            caplen: 11,
            limit: 10,
            ..
        }
    ));
    // Huge block.
    let mut b = base.clone();
    b.extend([6, 0, 0, 0, 0, 0, 0, 0x7f]);
    assert!(matches!(
        err_of(&checked("huge", &b)).kind(),
        ErrorKind::BlockTooLarge { .. }
    ));
    // No IDB; packet before IDB.
    let b = Ng::new(false).shb(1, 0).out;
    assert!(matches!(
        err_of(&checked("noidb", &b)).kind(),
        ErrorKind::NoInterfaces
    ));
    let b = Ng::new(false).shb(1, 0).spb(4, &[0; 4]).idb(1, 0, &[]).out;
    assert!(matches!(
        err_of(&checked("pktfirst", &b)).kind(),
        ErrorKind::PacketBeforeInterface
    ));
    // First SHB: versions and lengths.
    for (maj, min, ok) in [
        (1, 0, true),
        (1, 2, true),
        (1, 1, false),
        (0, 1, false),
        (2, 0, false),
    ] {
        let b = Ng::new(true).shb(maj, min).idb(1, 0, &[]).out;
        let r = checked(&format!("shbv{maj}{min}"), &b);
        assert_eq!(r.end.is_ok(), ok, "{maj}.{min}");
    }
    let mut b = base.clone();
    b[4] = 24; // SHB length below 28
    assert!(matches!(
        err_of(&checked("shb24", &b)).kind(),
        ErrorKind::BadSectionLength { len: 24 }
    ));
    let mut b = base.clone();
    b[8] = 0; // bad byte-order magic
    assert!(matches!(
        err_of(&read_all(&b)).kind(),
        ErrorKind::BadByteOrderMagic { .. }
    ));
    // Bad IDB options.
    let three = [1u8, 2, 3];
    let one = [6u8];
    for (name, opts) in [
        ("tsres-len", vec![(9u16, &three[..])]),
        ("tsres-dup", vec![(9, &one[..]), (9, &one[..])]),
        ("tsoff-len", vec![(14, &three[..])]),
    ] {
        let b = Ng::new(false).shb(1, 0).idb(1, 0, &opts).out;
        let r = checked(name, &b);
        assert!(
            matches!(err_of(&r).kind(), ErrorKind::BadOption(_)),
            "{name}"
        );
    }
    // An option running past the end of the IDB.
    let e = E(false);
    let mut body = Vec::new();
    body.extend(e.u16(1));
    body.extend(e.u16(0));
    body.extend(e.u32(0));
    body.extend(e.u16(2));
    body.extend(e.u16(100));
    let b = Ng::new(false).shb(1, 0).block(1, &body).out;
    assert!(matches!(
        err_of(&checked("optlong", &b)).kind(),
        ErrorKind::BlockTooShort { block_type: 1 }
    ));
}

#[test]
fn pcapng_dump_header() {
    let b = Ng::new(true)
        .shb(1, 0)
        .idb(113, 0, &[(9, &[9])])
        .epb(0, 1_234_567_890_123_456_789, &frame(30, 0), 30)
        .out;
    checked("ngdump", &b).end.unwrap();
    let rd = Reader::new(&b[..]).unwrap();
    let h = rd.tcpdump_dump_header(false).unwrap();
    assert_eq!(h.linktype, LinkType::LINUX_SLL);
    assert_eq!(h.snaplen, 262_144);
    assert_eq!(h.precision, TsPrecision::Micro);
    assert_eq!(
        rd.tcpdump_dump_header(true).unwrap().precision,
        TsPrecision::Nano
    );
}

#[test]
fn big_endian_sll_can_id_is_converted_like_libpcap() {
    // libpcap converts the CAN id after a LINUX_SLL header of SocketCAN packets in
    // files of the other byte order.
    let mut d = vec![0u8; 32];
    d[14..16].copy_from_slice(&0x000cu16.to_be_bytes());
    d[16..20].copy_from_slice(&[0x12, 0x34, 0x56, 0x78]);
    let bytes = Pcap::new(true, 0xa1b2_c3d4, 2, 4, 65535, 113)
        .rec(1, 0, 32, 32, &d)
        .out;
    let r = checked("sllcan", &bytes);
    assert_eq!(&r.packets[0].data[16..20], &[0x78, 0x56, 0x34, 0x12]);
    let bytes = Ng::new(true)
        .shb(1, 0)
        .idb(113, 0, &[])
        .epb(0, 0, &d, 32)
        .out;
    let r = checked("sllcan-ng", &bytes);
    assert_eq!(&r.packets[0].data[16..20], &[0x78, 0x56, 0x34, 0x12]);
    let _ = RawTs::Pcap {
        sec: 0,
        frac: 0,
        nano: false,
    };
}

#[test]
fn linux_dlt_values_are_read_as_libpcap_reads_them() {
    // 12 is DLT_RAW on Linux: libpcap treats a file saying 12 as RAW and
    // `tcpdump -w` writes 101.
    for (stored, meant) in [(12u32, 101u32), (11, 100), (19, 106), (101, 101), (1, 1)] {
        let bytes = Pcap::new(false, 0xa1b2_c3d4, 2, 4, 0, stored)
            .rec(1, 0, 20, 20, &[0x45; 20])
            .out;
        checked(&format!("dlt{stored}"), &bytes).end.unwrap();
        let rd = Reader::new(&bytes[..]).unwrap();
        assert_eq!(rd.linktype(), LinkType(meant));
        assert_eq!(rd.linktype_field(), stored);
        assert_eq!(
            rd.tcpdump_dump_header(false).unwrap().linktype,
            LinkType(meant)
        );

        let bytes = Ng::new(false)
            .shb(1, 0)
            .idb(stored as u16, 0, &[])
            .epb(0, 0, &[0x45; 20], 20)
            .out;
        checked(&format!("ngdlt{stored}"), &bytes).end.unwrap();
        let rd = Reader::new(&bytes[..]).unwrap();
        assert_eq!(rd.linktype(), LinkType(meant));
        assert_eq!(rd.linktype_field(), stored);
    }
}
