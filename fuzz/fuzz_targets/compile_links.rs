//! The filter compiler on the link types beyond the first eight (PPP, PFLOG,
//! 802.11, FDDI, ATM, MTP2, Juniper, ... whatever `LinkType::filtered_more` lists):
//! it never panics, and where libpcap compiles the same text for the same link
//! type, the two agree on frames of that link type, whole, cut short and mutated.
//!
//! Input: a libpcap link-type name and a newline; the expression; optionally a
//! NUL and bytes laid over a generated frame. A name the compiler does not
//! handle beyond the first eight is hashed onto one it does, so that mutations
//! of the name still land on a link type. An empty expression takes one from
//! the conformance suite's generator for that link type instead. The frames
//! come from the conformance suite's generator (`synth::Gen`), seeded by the
//! input. What is not compared is what the `compile` target leaves out
//! (`netsift_fuzz::differ`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsift_conformance::exprgen::ExprGen;
use netsift_conformance::synth::Gen;
use netsift_fuzz::differ::{comparable, Differ};
use netsift_oracle::Filter;
use netsift_wire::LinkType;
use std::sync::OnceLock;

/// As in the `compile` target: libpcap's optimiser is quadratic in the program.
const MAX_TEXT: usize = 1024;

/// Frames generated per input, before the input's own.
const FRAMES: usize = 6;

fn more() -> &'static [LinkType] {
    static MORE: OnceLock<Vec<LinkType>> = OnceLock::new();
    MORE.get_or_init(|| LinkType::filtered_more().collect())
}

/// FNV-1a: a seed that follows every byte of the input.
fn seed(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn linktype(name: &[u8]) -> LinkType {
    let named = std::str::from_utf8(name).ok().and_then(LinkType::from_name);
    match named {
        Some(lt) if more().contains(&lt) => lt,
        _ => more()[(seed(name) % more().len() as u64) as usize],
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(nl) = data.iter().position(|&b| b == b'\n') else {
        return;
    };
    let lt = linktype(&data[..nl]);
    let rest = &data[nl + 1..];
    let (text, extra) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    if text.len() > MAX_TEXT {
        return;
    }
    let seed = seed(data);
    let text = if text.is_empty() {
        ExprGen::new(seed, lt).next_expr()
    } else {
        match std::str::from_utf8(text) {
            Ok(t) => t.to_string(),
            Err(_) => {
                let _ = netsift_pcapc::compile(&String::from_utf8_lossy(text), lt);
                return;
            }
        }
    };
    let Ok(set) = netsift_pcapc::compile(&text, lt) else {
        return;
    };
    let Ok(oracle) = Filter::compile(lt, &text) else {
        return;
    };
    if !comparable(&text, &oracle) {
        return;
    }
    let compiled = netsift_engine::Compiled::new(set);
    let mut d = Differ {
        text: &text,
        linktype: lt,
        oracle: &oracle,
        ours: &compiled,
        scratch: netsift_engine::Scratch::new(),
    };
    let mut gen = Gen::new(seed);
    let mut base = None;
    for _ in 0..FRAMES {
        let p = gen.packet(lt, 30);
        d.check(&p.data, p.wire_len);
        if base.is_none() && p.data.len() as u32 == p.wire_len {
            base = Some(p.data);
        }
    }
    if extra.is_empty() {
        return;
    }
    // The input's bytes over a whole generated frame, so that most of it stays
    // well formed for its link type and the fields the expression names take
    // the input's values; then the same cut to the input's length.
    let mut p = base.unwrap_or_else(|| gen.frame(lt));
    for (i, &b) in extra.iter().take(256).enumerate() {
        match p.get_mut(i) {
            Some(x) => *x ^= b,
            None => p.push(b),
        }
    }
    let wire = p.len() as u32;
    d.check(&p, wire);
    if extra.len() < p.len() {
        d.check(&p[..extra.len()], wire);
    }
});
