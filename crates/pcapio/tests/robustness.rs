//! Truncated, random and mutated input: never a panic, always the packets before
//! the fault then an error naming a byte offset (or a clean end exactly at a record
//! boundary, as libpcap). Where tcpdump is installed, cut and mutated files are
//! also checked against libpcap.

mod common;

use std::io::Read;
use std::path::PathBuf;

use common::*;
use netsift_pcapio::{PcapWriter, Reader, TsPrecision};
use netsift_wire::LinkType;

fn tcpdump_enabled() -> bool {
    have_tcpdump()
}

/// A valid pcap built here (used when the corpus is absent, and always).
fn synthetic_pcap() -> Vec<u8> {
    let mut w = PcapWriter::new(Vec::new(), LinkType::EN10MB, 65535, TsPrecision::Micro).unwrap();
    for i in 0..12u32 {
        let d: Vec<u8> = (0..(14 + i * 7)).map(|b| b as u8 ^ i as u8).collect();
        w.write_packet(1_600_000_000 + i, i * 1000, &d, 100 + i)
            .unwrap();
    }
    w.into_inner().unwrap()
}

/// Sample files: a synthetic pcap plus, if the corpus is there, a pcap and a pcapng.
fn samples() -> Vec<(String, Vec<u8>)> {
    let mut v = vec![("synthetic.pcap".to_string(), synthetic_pcap())];
    if let Some(c) = corpus() {
        for rel in [
            "libpcap/vrrp.pcap",
            "tcpdump/ospf-sr.pcapng",
            "libpcap/rarp_req_reply.pcapng",
        ] {
            let p: PathBuf = c.join("pcaps").join(rel);
            if let Ok(b) = std::fs::read(&p) {
                v.push((rel.to_string(), b));
            }
        }
        // A big-endian pcap of the corpus, if any.
        for f in files(&c.join("pcaps").join("tcpdump")) {
            if let Ok(b) = std::fs::read(&f) {
                if b.starts_with(&[0xa1, 0xb2, 0xc3, 0xd4]) && b.len() > 400 {
                    v.push((f.file_name().unwrap().to_string_lossy().into_owned(), b));
                    break;
                }
            }
        }
    }
    v
}

/// Offsets at which a cut file ends cleanly: the end of the file header (pcap) or
/// of the first IDB (pcapng), and every later block or record end.
fn boundaries(bytes: &[u8]) -> Vec<usize> {
    let mut v = Vec::new();
    if bytes.starts_with(&[0x0a, 0x0d, 0x0d, 0x0a]) {
        let big = bytes[8..12] == [0x1a, 0x2b, 0x3c, 0x4d];
        let rd = |at: usize| {
            let b: [u8; 4] = bytes[at..at + 4].try_into().unwrap();
            if big {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        let mut at = 0;
        let mut seen_idb = false;
        while at + 8 <= bytes.len() {
            let ty = rd(at);
            at += rd(at + 4) as usize;
            seen_idb |= ty == 1;
            if seen_idb {
                v.push(at);
            }
        }
    } else {
        let mut rd = Reader::new(bytes).unwrap();
        v.push(rd.offset() as usize);
        while rd.next_packet().unwrap().is_some() {
            v.push(rd.offset() as usize);
        }
    }
    v
}

#[test]
fn every_cut_gives_packets_then_an_error() {
    let tcpdump = tcpdump_enabled();
    let tmp = scratch("cuts");
    let mut mismatches = Vec::new();
    let mut cuts_checked = 0;
    for (name, bytes) in samples() {
        let full = read_all(&bytes);
        full.end.as_ref().unwrap();
        let ends = boundaries(&bytes);
        let mut cuts: Vec<usize> = (0..bytes.len().min(300)).collect();
        for k in 1..=12 {
            cuts.push(bytes.len() * k / 13);
            cuts.push(bytes.len() * k / 13 + 1);
        }
        cuts.extend([bytes.len() - 1, bytes.len() - 3, bytes.len()]);
        cuts.sort();
        cuts.dedup();
        for cut in cuts {
            let part = &bytes[..cut];
            let r = read_all(part);
            // The packets are a prefix of the full file's.
            assert!(r.packets.len() <= full.packets.len(), "{name} cut {cut}");
            assert_eq!(
                r.packets[..],
                full.packets[..r.packets.len()],
                "{name} cut {cut}"
            );
            match &r.end {
                Ok(()) => assert!(ends.contains(&cut), "{name}: clean end at {cut}"),
                Err(e) => {
                    assert!(!ends.contains(&cut), "{name}: error at boundary {cut}: {e}");
                    assert!(e.offset() <= cut as u64, "{name} cut {cut}: {e}");
                    assert!(e.to_string().contains("at byte offset"));
                }
            }
            if tcpdump {
                let f = tmp.join("cut.cap");
                std::fs::write(&f, part).unwrap();
                let c = compare_with_tcpdump(&format!("{name} cut at {cut}"), &f, &tmp);
                mismatches.extend(c.mismatches);
            }
            cuts_checked += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!("{cuts_checked} cuts checked (tcpdump comparison: {tcpdump})");
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let prefixes: [&[u8]; 5] = [
        &[],
        &[0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0],
        &[0xa1, 0xb2, 0x3c, 0x4d, 0, 2, 0, 4],
        &[
            0x0a, 0x0d, 0x0d, 0x0a, 0x1c, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0,
        ],
        &[
            0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0x1c, 0x1a, 0x2b, 0x3c, 0x4d, 0, 1, 0, 0,
        ],
    ];
    for i in 0..20_000 {
        let mut v = prefixes[i % prefixes.len()].to_vec();
        let n = rng.below(if i % 10 == 0 { 4000 } else { 120 }) as usize;
        for _ in 0..n {
            // Mostly small numbers, so lengths and versions are often plausible.
            let b = rng.next();
            v.push(if b & 0x300 == 0 {
                (b >> 16) as u8
            } else {
                (b >> 16) as u8 & 7
            });
        }
        let r = read_all(&v);
        if let Err(e) = &r.end {
            assert!(e.to_string().contains("at byte offset"));
            assert!(e.offset() <= v.len() as u64);
        }
    }
}

/// Applies one random mutation.
fn mutate(rng: &mut Rng, v: &mut Vec<u8>) {
    if v.is_empty() {
        v.push(rng.next() as u8);
        return;
    }
    let at = rng.below(v.len() as u64) as usize;
    match rng.below(7) {
        0 => v[at] ^= 1 << rng.below(8),
        1 => v[at] = rng.next() as u8,
        2 => {
            // Overwrite a 32-bit field with an interesting value.
            let vals = [
                0u32,
                1,
                7,
                12,
                0xffff,
                0x1_0000,
                0x4_0000,
                0x4_0001,
                0x7fff_ffff,
                0xffff_ffff,
            ];
            let x = vals[rng.below(vals.len() as u64) as usize];
            let bytes = if rng.below(2) == 0 {
                x.to_le_bytes()
            } else {
                x.to_be_bytes()
            };
            for (k, b) in bytes.iter().enumerate() {
                if let Some(slot) = v.get_mut(at + k) {
                    *slot = *b;
                }
            }
        }
        3 => v.truncate(at),
        4 => {
            let n = rng.below(16) as usize;
            for _ in 0..n {
                v.insert(at, rng.next() as u8);
            }
        }
        5 => {
            let n = (rng.below(16) as usize).min(v.len() - at);
            v.drain(at..at + n);
        }
        _ => {
            // Duplicate a chunk (e.g. a block or record).
            let n = (rng.below(64) as usize).min(v.len() - at);
            let chunk = v[at..at + n].to_vec();
            let to = rng.below(v.len() as u64) as usize;
            v.splice(to..to, chunk);
        }
    }
}

#[test]
fn mutated_files_never_panic_and_agree_with_libpcap() {
    let tcpdump = tcpdump_enabled();
    let tmp = scratch("mut");
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let samples = samples();
    let mut mismatches = Vec::new();
    let mut compared = 0;
    for i in 0..6000 {
        let (name, base) = &samples[i % samples.len()];
        let mut v = base.clone();
        // Mutations concentrated on the headers most of the time.
        if i % 2 == 0 && v.len() > 160 {
            v.truncate(160 + rng.below(200) as usize);
        }
        for _ in 0..=rng.below(4) {
            mutate(&mut rng, &mut v);
        }
        let r = read_all(&v);
        if let Err(e) = &r.end {
            assert!(e.to_string().contains("at byte offset"), "{e}");
        }
        if tcpdump && i % 10 == 0 {
            let f = tmp.join("m.cap");
            std::fs::write(&f, &v).unwrap();
            let c = compare_with_tcpdump(&format!("{name} mutation {i}"), &f, &tmp);
            // tcpdump also refuses link types it cannot print or write; the reader
            // does not judge link types.
            let unknown_link = c.tcpdump_err.contains("unknown data link type")
                || c.tcpdump_err.contains("savefiles")
                || c.tcpdump_err.contains("not supported");
            if !unknown_link {
                if !c.mismatches.is_empty() {
                    let keep = tmp.join(format!("mismatch-{i}.cap"));
                    let _ = std::fs::copy(&f, &keep);
                    eprintln!("kept {}", keep.display());
                }
                mismatches.extend(c.mismatches);
                compared += 1;
            }
        }
    }
    eprintln!("{compared} mutated files compared with tcpdump");
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A pcap stream generated on the fly: `n` packets, never stored.
struct Synth {
    header: Vec<u8>,
    pos: usize,
    left: u64,
    rec: Vec<u8>,
}

impl Read for Synth {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.header.len() {
            if self.left == 0 {
                return Ok(0);
            }
            self.left -= 1;
            self.header.clear();
            self.header.extend_from_slice(&self.rec);
            self.pos = 0;
        }
        let n = buf.len().min(self.header.len() - self.pos);
        buf[..n].copy_from_slice(&self.header[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[test]
fn streams_without_loading_the_file() {
    let n = 300_000u64;
    let mut rec = Vec::new();
    rec.extend(7u32.to_le_bytes());
    rec.extend(8u32.to_le_bytes());
    rec.extend(200u32.to_le_bytes());
    rec.extend(1500u32.to_le_bytes());
    rec.extend([0x5a; 200]);
    let header = netsift_pcapio::file_header(LinkType::EN10MB, 65535, TsPrecision::Micro).to_vec();
    let src = Synth {
        header,
        pos: 0,
        left: n,
        rec: rec.clone(),
    };
    let mut rd = Reader::new(std::io::BufReader::new(src)).unwrap();
    let mut count = 0u64;
    let mut bytes = 0u64;
    while let Some(p) = rd.next_packet().unwrap() {
        count += 1;
        bytes += u64::from(p.caplen);
        assert_eq!(p.orig_len, 1500);
    }
    assert_eq!(count, n);
    assert_eq!(bytes, n * 200);
    assert_eq!(rd.offset(), 24 + n * rec.len() as u64);
}
