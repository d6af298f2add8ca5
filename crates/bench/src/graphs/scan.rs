//! Table 1's rows 6 and 7 (snort's Aho-Corasick, 1,000 cycles with a match
//! and 9,900 without): `aho_corasick:SET` from `netsift-externs` over 1,000
//! signatures on 1,500-byte TCP frames, one whose payload starts with a
//! signature and one that holds none, so the search stops at once or reads
//! the whole payload. Each is called directly (the `ExternFn` as an executor
//! calls it) and from FPL through the interpreter, all four in one set of
//! rounds.

use super::rounds::{alternate, timed, Sample};
use super::GraphsConfig;
use crate::stats::Stat;
use netsift_externs::Library;
use netsift_fpl::externs::{Call, ExternFn, Registry};
use netsift_fpl::{compile, interp, Options};
use netsift_testkit::frames::Frame;

/// Ethernet, IPv4 and TCP headers of the frames: where the payload starts.
const PAYLOAD_AT: usize = 54;
/// The frames' length.
const FRAME_LEN: usize = 1_500;

/// The FPL caller: it puts the payload's range in MBuf slots 0 and 1 and
/// returns what the search returns (the pattern's number plus one, or 0).
const SCAN_FPL: &str = "MEM[0] = PKT.TCP_PAYLOAD;\n\
                        MEM[1] = PKT.IP_LEN + 14 - PKT.TCP_PAYLOAD;\n\
                        RETURN EXTERN(\"aho_corasick:sigs\", 0, 16);";

/// ns per search.
#[derive(Clone, Copy, Debug)]
pub struct Scan {
    /// Direct call, a match at the payload's start.
    pub hit: Stat,
    /// Direct call, no match.
    pub miss: Stat,
    /// From FPL (interpreter), a match.
    pub hit_fpl: Stat,
    /// From FPL (interpreter), no match.
    pub miss_fpl: Stat,
    /// Patterns in the set.
    pub patterns: usize,
}

/// A few well-known worm signatures, then pseudo-random printable strings of
/// 8 to 23 bytes up to `n` (the size of a snort rule group's content set).
fn signatures(n: usize) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = [
        &b"/default.ida?NNNN"[..],
        b"/scripts/..%c0%af../",
        b"/winnt/system32/cmd.exe",
        b"\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90",
    ]
    .iter()
    .map(|s| s.to_vec())
    .collect();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    while v.len() < n {
        // A 64-bit LCG (Knuth's MMIX constants): deterministic, no crate.
        let mut next = || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) as u8
        };
        let len = 8 + usize::from(next() % 16);
        v.push((0..len).map(|_| b'!' + next() % 94).collect());
    }
    v
}

/// A 1,500-byte TCP frame to port 80 whose payload is `head`, then filler.
fn frame(head: &[u8]) -> Vec<u8> {
    let filler = b"Accept: text/html, text/plain; q=0.8; Accept-Language: en ";
    let mut payload = head.to_vec();
    while payload.len() < FRAME_LEN - PAYLOAD_AT {
        payload.extend_from_slice(filler);
    }
    payload.truncate(FRAME_LEN - PAYLOAD_AT);
    Frame::default()
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
        .tcp(40000, 80, 0x18)
        .payload(&payload)
        .build()
}

/// Calls `f` on `packet` with `mbuf`, whose slots 0 and 1 hold the payload's range.
fn direct(f: &ExternFn, packet: &[u8], mbuf: &mut [u8]) -> i64 {
    f.call(Call {
        packet,
        mbuf,
        input: 0,
        output: 16,
        input_len: f.input_len(),
        output_len: f.output_len(),
    })
}

/// Times the four searches.
pub fn run(cfg: &GraphsConfig) -> Result<Scan, String> {
    let sigs = signatures(1_000);
    let mut lib = Library::new();
    lib.aho_corasick("sigs", &sigs).map_err(|e| e.to_string())?;
    let reg = lib.registry();
    let f = reg
        .lookup("aho_corasick:sigs")
        .ok_or("aho_corasick:sigs is not registered")?;
    let program = compile(SCAN_FPL, &Options::default(), &reg).map_err(|e| e.to_string())?;
    let hit = frame(b"GET /default.ida?NNNNNNNNNNNNNNNNNNNNNNNN%u9090%u6858 HTTP/1.0\r\n");
    let miss = frame(b"GET /index.html HTTP/1.1\r\nHost: example.org\r\n");
    if hit.len() != FRAME_LEN || miss.len() != FRAME_LEN {
        return Err(format!(
            "the frames have {} and {} bytes",
            hit.len(),
            miss.len()
        ));
    }
    let mut range = vec![0u8; program.mbuf_len().max(32)];
    range[..8].copy_from_slice(&(PAYLOAD_AT as i64).to_le_bytes());
    range[8..16].copy_from_slice(&((FRAME_LEN - PAYLOAD_AT) as i64).to_le_bytes());
    // What each way of calling must say before it is timed: pattern 0 (1)
    // in the hit, nothing in the miss.
    for (pkt, want) in [(&hit, 1), (&miss, 0)] {
        let d = direct(&f, pkt, &mut range.clone());
        let mut mbuf = vec![0u8; program.mbuf_len()];
        let i = interp::run(&program, pkt, &mut mbuf, &mut [0; 16]).value();
        if (d, i) != (want, want) {
            return Err(format!(
                "aho_corasick returned {d} (direct) and {i} (FPL), not {want}"
            ));
        }
    }
    let n = cfg.ops(200_000);
    let mut m = [range.clone(), range.clone(), range.clone(), range];
    let [m0, m1, m2, m3] = &mut m;
    let (p, f) = (&program, &f);
    let mut cs: Vec<Sample<'_>> = vec![
        timed(n, || direct(f, &hit, m0)),
        timed(n, || direct(f, &miss, m1)),
        timed(n, || interp::run(p, &hit, m2, &mut [0; 16]).value()),
        timed(n, || interp::run(p, &miss, m3, &mut [0; 16]).value()),
    ];
    let s = alternate(cfg.runs, &mut cs)?;
    Ok(Scan {
        hit: s[0],
        miss: s[1],
        hit_fpl: s[2],
        miss_fpl: s[3],
        patterns: sigs.len(),
    })
}
