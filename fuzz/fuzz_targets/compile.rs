//! The expression compiler on arbitrary text: it never panics, and where libpcap
//! compiles the same text, the two agree on a fixed set of frames and on one frame
//! taken from the input.
//!
//! Input: one byte choosing the link type (EN10MB, RAW, or one of the 802.11 types:
//! bare, radiotap, AVS, Prism, PPI), the expression, then optionally a NUL and bytes
//! laid over a well-formed frame. Verdicts not compared:
//!
//! * packets on which libpcap has no defined verdict (its `protochain` loop, or a
//!   scratch slot read before any store on that path): the oracle's step-bounded
//!   interpreter says so, as in the conformance harness;
//! * disagreements where either side's verdict came from a load past the captured
//!   bytes: on a short packet libpcap's verdict depends on which loads its optimiser
//!   leaves before a decision, which netsift reproduces only in part (the random
//!   test's SHORT_BUDGET ratchet, docs/architecture.md §8);
//! * expressions with `byte` (`byte N & M` tests whatever libpcap's previous
//!   instruction left in the accumulator) and those whose libpcap program reads
//!   scratch memory and mention `geneve` or `protochain` (libpcap reuses the slot of
//!   an earlier arithmetic comparison): both "Not reproduced" in §8.
//!
//! Refusals are not compared (netsift refuses some expressions libpcap accepts at
//! its limits, and a few the other way, all listed in §8); only panics count there.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsift_fuzz::differ::{comparable, Differ};
use netsift_fuzz::frames::{self, Frame};
use netsift_oracle::Filter;
use netsift_wire::LinkType;
use std::sync::OnceLock;

/// Longer texts only make libpcap's optimiser (quadratic in the program) slow; the
/// parser's depth limits are tested by pcapc's own tests.
const MAX_TEXT: usize = 1024;

/// The link types the first input byte chooses from.
const LINKTYPES: [LinkType; 7] = [
    LinkType::EN10MB,
    LinkType::RAW,
    LinkType::IEEE802_11,
    LinkType::IEEE802_11_RADIO,
    LinkType::IEEE802_11_RADIO_AVS,
    LinkType::PRISM_HEADER,
    LinkType::PPI,
];

fn fixed(i: usize) -> &'static [Frame] {
    static FRAMES: OnceLock<Vec<Vec<Frame>>> = OnceLock::new();
    &FRAMES.get_or_init(|| {
        LINKTYPES
            .iter()
            .map(|&lt| match lt {
                LinkType::EN10MB => frames::fixed(false),
                LinkType::RAW => frames::fixed(true),
                lt => frames::wlan(lt.0),
            })
            .collect()
    })[i]
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let which = sel as usize % LINKTYPES.len();
    let linktype = LINKTYPES[which];
    let (text, extra) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    if text.len() > MAX_TEXT {
        return;
    }
    let Ok(text) = std::str::from_utf8(text) else {
        // Not text: the compiler takes &str, so only a panic-free refusal of the
        // lossy form can be asked for.
        let _ = netsift_pcapc::compile(&String::from_utf8_lossy(text), linktype);
        return;
    };
    let ours = netsift_pcapc::compile(text, linktype);
    let Ok(set) = ours else { return };
    let Ok(oracle) = Filter::compile(linktype, text) else {
        return;
    };
    if !comparable(text, &oracle) {
        return;
    }
    let compiled = netsift_engine::Compiled::new(set);
    let mut d = Differ {
        text,
        linktype,
        oracle: &oracle,
        ours: &compiled,
        scratch: netsift_engine::Scratch::new(),
    };
    let mut check = |p: &[u8], wire_len: u32| d.check(p, wire_len);
    for f in fixed(which) {
        check(&f.data, f.wire_len);
    }
    if let Some(extra) = extra {
        // The input's bytes over the first frame (IPv4 TCP), so that most of it stays
        // well formed and the fields the expression names take the input's values.
        let base = &fixed(which)
            .iter()
            .find(|f| f.data.len() as u32 == f.wire_len)
            .expect("a whole frame")
            .data;
        let mut p = base.clone();
        for (i, &b) in extra.iter().take(256).enumerate() {
            match p.get_mut(i) {
                Some(x) => *x ^= b,
                None => p.push(b),
            }
        }
        let wire = p.len() as u32;
        check(&p, wire);
        // The same cut to the input's length, where that is shorter.
        if extra.len() < p.len() {
            check(&p[..extra.len()], wire);
        }
    }
});
