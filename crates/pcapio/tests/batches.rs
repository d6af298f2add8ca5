//! Batch reading and writing: `Reader::next_batch` over any buffer size and batch
//! size gives exactly the records and the error of `Reader::next_record`, records
//! straddling the buffer's end included; `PcapWriter::write_batch` writes exactly
//! what `write_record` writes, whatever records are kept.

mod common;

use std::io::{Read, Write};

use common::*;
use netsift_pcapio::{ChunkWriter, PcapWriter, Reader, TsPrecision};
use netsift_wire::LinkType;

/// Buffer capacities to try: tiny (every record straddles), odd, and the default.
const CAPACITIES: [usize; 5] = [64, 100, 333, 4096, 1 << 20];

/// A reader that hands out at most `step` bytes per call, like a pipe.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.step).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Reads everything with `next_batch(max)` on a buffer of `capacity` bytes.
fn read_batches<R: Read>(r: R, capacity: usize, max: usize) -> ReadAll {
    let mut packets = Vec::new();
    let mut rd = match Reader::with_capacity(r, capacity) {
        Ok(rd) => rd,
        Err(e) => {
            return ReadAll {
                packets,
                end: Err(e),
                open_failed: true,
            }
        }
    };
    let end = loop {
        match rd.next_batch(max) {
            Ok(b) if b.is_empty() => break Ok(()),
            Ok(b) => {
                assert!(b.len() <= max.max(1));
                for (i, r) in b.iter().enumerate() {
                    assert_eq!(b.packet_data(i), (r.packet.data, r.packet.orig_len));
                    packets.push(Pkt {
                        ts_sec: r.packet.ts_sec,
                        ts_nsec: r.packet.ts_nsec,
                        caplen: r.packet.caplen,
                        orig_len: r.packet.orig_len,
                        data: r.packet.data.to_vec(),
                        interface: r.packet.interface,
                        raw: r.raw_ts,
                    });
                }
            }
            Err(e) => break Err(e),
        }
    };
    assert!(
        rd.next_batch(max).unwrap().is_empty(),
        "fused after the end"
    );
    ReadAll {
        packets,
        end,
        open_failed: false,
    }
}

/// Checks every way of batching `bytes` against `next_record`.
fn check_batches(name: &str, bytes: &[u8]) {
    let want = read_all(bytes);
    let want_end = want.end.as_ref().map_err(|e| e.to_string());
    for cap in CAPACITIES {
        for max in [1, 3, 32] {
            let got = read_batches(bytes, cap, max);
            let got_end = got.end.as_ref().map_err(|e| e.to_string());
            assert_eq!(
                got.open_failed, want.open_failed,
                "{name} cap {cap} max {max}"
            );
            assert_eq!(got_end, want_end, "{name} cap {cap} max {max}");
            assert!(got.packets == want.packets, "{name} cap {cap} max {max}");
        }
    }
    let got = read_batches(
        Trickle {
            data: bytes,
            step: 7,
        },
        256,
        32,
    );
    assert_eq!(
        got.end.as_ref().map_err(|e| e.to_string()),
        want_end,
        "{name} trickled"
    );
    assert!(got.packets == want.packets, "{name} trickled");
}

/// `write_record` of the kept records, and `write_batch` of the same, over the
/// same input; returns both outputs (or `None` if the file cannot be written).
fn both_writes(
    bytes: &[u8],
    keep: impl Fn(usize) -> bool,
    max: usize,
) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut rd = Reader::new(bytes).ok()?;
    let h = rd.tcpdump_dump_header(false)?;
    let mut one = PcapWriter::new(Vec::new(), h.linktype, h.snaplen, h.precision).unwrap();
    let mut k = 0;
    while let Ok(Some(r)) = rd.next_record() {
        if keep(k) {
            one.write_record(&r).unwrap();
        }
        k += 1;
    }
    let mut rd = Reader::with_capacity(bytes, 300).unwrap();
    let chunks = ChunkWriter::with_chunk_size(Vec::new(), 50);
    let mut many = PcapWriter::new(chunks, h.linktype, h.snaplen, h.precision).unwrap();
    let mut k = 0;
    while let Ok(b) = rd.next_batch(max) {
        if b.is_empty() {
            break;
        }
        let flags: Vec<bool> = (k..k + b.len()).map(&keep).collect();
        many.write_batch(&b, &flags).unwrap();
        k += b.len();
    }
    let many = many.into_inner().unwrap().into_inner().unwrap();
    Some((one.into_inner().unwrap(), many))
}

fn check_writes(name: &str, bytes: &[u8]) {
    type Keep = fn(usize) -> bool;
    let keeps: [(&str, Keep); 4] = [
        ("all", |_| true),
        ("none", |_| false),
        ("odd", |i| i % 2 == 1),
        ("runs", |i| (i * 7919) % 13 < 8),
    ];
    for (what, keep) in keeps {
        for max in [1, 5, 32, 100] {
            if let Some((one, many)) = both_writes(bytes, keep, max) {
                assert!(one == many, "{name}: keep {what}, batches of {max}");
            }
        }
    }
}

/// pcap files built here: every pcap variant the reader knows.
fn synthetic() -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for prec in [TsPrecision::Micro, TsPrecision::Nano] {
        let mut w = PcapWriter::new(Vec::new(), LinkType::EN10MB, 90, prec).unwrap();
        for i in 0..200u32 {
            let d: Vec<u8> = (0..(14 + (i * 37) % 120)).map(|b| (b ^ i) as u8).collect();
            // Odd fractions too: >= 1 s, >= 2^31.
            let frac = match i % 50 {
                7 => 1_500_000,
                8 => 0x8000_0001,
                _ => i * 1000,
            };
            w.write_packet(1_600_000_000 + i, frac, &d, 100 + i)
                .unwrap();
        }
        v.push((format!("synthetic-{prec:?}.pcap"), w.into_inner().unwrap()));
    }
    // Records above the snapshot length (cut on reading, so never copied as
    // stored), big-endian, and an old version with swapped lengths.
    let records = |big: bool, major: u16, minor: u16, swap: bool| {
        let u16b = |x: u16| {
            if big {
                x.to_be_bytes()
            } else {
                x.to_le_bytes()
            }
        };
        let u32b = |x: u32| {
            if big {
                x.to_be_bytes()
            } else {
                x.to_le_bytes()
            }
        };
        let mut f = Vec::new();
        f.extend(u32b(0xa1b2_c3d4));
        f.extend(u16b(major));
        f.extend(u16b(minor));
        f.extend([0; 8]);
        f.extend(u32b(60));
        f.extend(u32b(1));
        for i in 0..80u32 {
            let caplen = 20 + (i * 13) % 70;
            let len = caplen + 4;
            f.extend(u32b(1000 + i));
            f.extend(u32b(i));
            let (a, b) = if swap { (len, caplen) } else { (caplen, len) };
            f.extend(u32b(a));
            f.extend(u32b(b));
            f.extend((0..caplen).map(|b| (b * 3 + i) as u8));
        }
        f
    };
    v.push(("cut-le.pcap".into(), records(false, 2, 4, false)));
    v.push(("cut-be.pcap".into(), records(true, 2, 4, false)));
    v.push(("swapped-2.2.pcap".into(), records(false, 2, 2, true)));
    v
}

#[test]
fn batches_read_what_records_read() {
    for (name, bytes) in synthetic() {
        check_batches(&name, &bytes);
        // Cut anywhere: the same packets, then the same error.
        for cut in (0..bytes.len()).step_by(37) {
            check_batches(&format!("{name} cut at {cut}"), &bytes[..cut]);
        }
    }
}

#[test]
fn batch_writes_are_record_writes() {
    for (name, bytes) in synthetic() {
        check_writes(&name, &bytes);
        check_writes(&format!("{name} cut"), &bytes[..bytes.len() * 2 / 3]);
    }
}

#[test]
fn corpus_batches_and_batch_writes() {
    let Some(c) = corpus() else { return };
    let mut n = 0;
    for dir in ["tcpdump", "libpcap", "libpcap-bad"] {
        for f in files(&c.join("pcaps").join(dir)) {
            let bytes = std::fs::read(&f).unwrap();
            let name = f.display().to_string();
            check_batches(&name, &bytes);
            check_writes(&name, &bytes);
            n += 1;
        }
    }
    eprintln!("{n} corpus files read in batches");
}

/// A fault in the middle of a large buffer: every record before it comes out (and
/// is written), then the error naming its offset.
#[test]
fn fault_in_the_middle_of_a_buffer() {
    let mut w = PcapWriter::new(Vec::new(), LinkType::EN10MB, 65535, TsPrecision::Micro).unwrap();
    for i in 0..1000u32 {
        w.write_packet(i, 0, &[i as u8; 60], 60).unwrap();
    }
    let mut bytes = w.into_inner().unwrap();
    // Record 700's caplen becomes 300000, above libpcap's 262144 limit.
    let at = 24 + 700 * (16 + 60);
    bytes[at + 8..at + 12].copy_from_slice(&300_000u32.to_le_bytes());

    let mut rd = Reader::new(&bytes[..]).unwrap();
    let mut out = PcapWriter::new(
        ChunkWriter::new(Vec::new()),
        LinkType::EN10MB,
        65535,
        TsPrecision::Micro,
    )
    .unwrap();
    let mut seen = 0;
    let err = loop {
        match rd.next_batch(32) {
            Ok(b) if b.is_empty() => panic!("no error"),
            Ok(b) => {
                seen += b.len();
                out.write_batch(&b, &[true; 32]).unwrap();
            }
            Err(e) => break e,
        }
    };
    assert_eq!(seen, 700);
    assert_eq!(err.offset(), at as u64);
    assert!(err.to_string().contains("300000"), "{err}");
    assert!(rd.next_batch(32).unwrap().is_empty());
    let out = out.into_inner().unwrap().into_inner().unwrap();
    assert_eq!(
        out,
        bytes[..at],
        "the 700 records before the fault, byte for byte"
    );
}

/// A record larger than the buffer makes it grow, and streaming goes on.
#[test]
fn record_larger_than_the_buffer() {
    let mut w = PcapWriter::new(Vec::new(), LinkType::EN10MB, 262_144, TsPrecision::Micro).unwrap();
    let sizes = [60usize, 5000, 60, 200_000, 61, 70_000, 14];
    for (i, &n) in sizes.iter().enumerate() {
        w.write_packet(i as u32, 0, &vec![i as u8; n], n as u32)
            .unwrap();
    }
    let bytes = w.into_inner().unwrap();
    let got = read_batches(&bytes[..], 4096, 32);
    got.end.unwrap();
    let lens: Vec<usize> = got.packets.iter().map(|p| p.data.len()).collect();
    assert_eq!(lens, sizes);
    check_batches("large records", &bytes);
}

/// The chunk writer's output, written through a file, is the same bytes.
#[test]
fn chunk_writer_through_a_file() {
    let dir = scratch("chunks");
    let path = dir.join("out.bin");
    let mut w = ChunkWriter::with_chunk_size(std::fs::File::create(&path).unwrap(), 4096);
    let mut all = Vec::new();
    for i in 0..3000u32 {
        let d = vec![i as u8; (i % 97) as usize];
        w.write_all(&d).unwrap();
        all.extend(d);
    }
    w.flush().unwrap();
    drop(w);
    assert_eq!(std::fs::read(&path).unwrap(), all);
    let _ = std::fs::remove_dir_all(&dir);
}
