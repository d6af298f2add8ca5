//! The expression compiler on arbitrary text for the link types beyond the first
//! eight (PPP, FDDI, Token Ring, ATM, ARCNET, MTP2, Juniper, ...): it never panics,
//! and where libpcap compiles the same text, the two agree on the input's frame.
//!
//! Input: two bytes choosing the link type among [`LinkType::filtered_more`], the
//! expression, then optionally a NUL and the frame, taken as it is (whole) and cut to
//! half its length. Verdicts not compared, as in `compile`: packets on which
//! libpcap's verdict is undefined or came from a load past the captured bytes, and
//! expressions with `byte`, or with `geneve`/`protochain` whose libpcap program reads
//! scratch memory. Refusals are not compared here (the conformance suite does).
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsift_oracle::Filter;
use netsift_wire::LinkType;

const MAX_TEXT: usize = 1024;

fuzz_target!(|data: &[u8]| {
    let [a, b, rest @ ..] = data else {
        return;
    };
    let more: Vec<LinkType> = LinkType::filtered_more().collect();
    let linktype = more[usize::from(u16::from_le_bytes([*a, *b])) % more.len()];
    let (text, frame) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    if text.len() > MAX_TEXT {
        return;
    }
    let Ok(text) = std::str::from_utf8(text) else {
        let _ = netsift_pcapc::compile(&String::from_utf8_lossy(text), linktype);
        return;
    };
    let Ok(set) = netsift_pcapc::compile(text, linktype) else {
        return;
    };
    let Ok(oracle) = Filter::compile(linktype, text) else {
        return;
    };
    let t = text.to_ascii_lowercase();
    if t.contains("byte")
        || (oracle.reads_memory() && (t.contains("geneve") || t.contains("protochain")))
    {
        return;
    }
    let compiled = netsift_engine::Compiled::new(set);
    let mut scratch = netsift_engine::Scratch::new();
    let frame = &frame[..frame.len().min(512)];
    let wire = frame.len() as u32;
    for p in [frame, &frame[..frame.len() / 2]] {
        let Ok(want) = oracle.try_run(p, wire) else {
            continue;
        };
        let got = compiled.matches(&mut scratch, p, wire);
        if got == (want != 0) {
            continue;
        }
        let oob = netsift_oracle::bpf::interpret_traced(oracle.insns(), p, wire, 1 << 24)
            .is_ok_and(|(_, oob)| oob);
        if oob || scratch.faulted() {
            continue;
        }
        panic!(
            "verdicts differ on {text:?} ({linktype}): libpcap {want}, netsift {got}, \
             caplen {}, wire {wire}, packet {p:02x?}",
            p.len()
        );
    }
});
