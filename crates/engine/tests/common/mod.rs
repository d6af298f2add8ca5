//! Random pass sets and packets shared by the property tests: any image in any slot
//! (random bytes, valid opcodes with random fields, valid opcodes with small in-bounds
//! fields), ARITH heads followed by their CONT slots, random pass structure and anchor
//! tables; and packets that are random bytes or a real frame's headers cut short.

#![allow(dead_code)]

use netsift_isa::{Anchor, Instruction, PassKind, PassSet};
use proptest::prelude::*;

pub(crate) fn insn_strategy() -> impl Strategy<Value = Instruction> {
    prop_oneof![
        // A loading opcode whose operands are values of the frame below (repeated to
        // fill their words), so that tests on packets cut from it often hold.
        (
            1u32..=7,
            0u32..3,
            0u32..5,
            0u32..4,
            0u32..72,
            prop::array::uniform7((0usize..FRAME.len(), any::<bool>())),
            any::<bool>(),
        )
            .prop_map(|(op, size, count, anchor, off, p, neg)| {
                let mut w = [0u32; 8];
                w[0] =
                    op << 26 | (neg as u32) << 25 | size << 22 | count << 17 | anchor << 11 | off;
                for (i, (at, all_ones)) in p.into_iter().enumerate() {
                    let bytes = 1 << size;
                    let v = FRAME[at..]
                        .iter()
                        .take(bytes)
                        .fold(0u32, |v, &b| v << 8 | b as u32);
                    w[i + 1] = match (all_ones, size) {
                        (true, _) => u32::MAX,
                        (false, 0) => v * 0x0101_0101,
                        (false, 1) => v * 0x0001_0001,
                        (false, _) => v,
                    };
                }
                Instruction(w)
            }),
        // Entirely random bytes.
        any::<[u8; 32]>().prop_map(|b| Instruction::from_bytes(&b)),
        // A valid opcode (1..=12) with random everything else, to reach deep paths.
        (1u32..=12, any::<[u32; 8]>()).prop_map(|(op, mut w)| {
            w[0] = (w[0] & 0x03ff_ffff) | op << 26;
            Instruction(w)
        }),
        // Valid opcode, small count/anchor/offset and small params: more in-bounds loads.
        (
            1u32..=12,
            0u32..4,
            0u32..29,
            0u32..8,
            0u32..64,
            prop::array::uniform7(0u32..70)
        )
            .prop_map(|(op, size, count, anchor, off, p)| {
                let mut w = [0u32; 8];
                w[0] = op << 26 | size << 22 | count << 17 | anchor << 11 | off;
                w[1..].copy_from_slice(&p);
                Instruction(w)
            }),
    ]
}

pub(crate) fn pass_strategy() -> impl Strategy<Value = (PassKind, Option<u16>, Vec<Instruction>)> {
    (
        any::<bool>(),
        prop::option::of(0u16..40),
        prop::collection::vec(insn_strategy(), 0..=netsift_isa::MAX_INSNS),
        prop::option::of((0usize..32, 0u32..5)),
    )
        .prop_map(|(root, parent, mut insns, chain)| {
            // Now and then an ARITH head followed by the CONT slots its offset field
            // counts (or fewer, where the pass ends), so chains are read often.
            if let Some((at, ext)) = chain.filter(|&(at, _)| at < insns.len()) {
                let w = &mut insns[at].0;
                w[0] = (w[0] & 0x03ff_f800) | 8 << 26 | ext;
                for c in insns.iter_mut().skip(at + 1).take(ext as usize) {
                    c.0[0] = (c.0[0] & 0x03ff_ffff) | 12 << 26;
                }
            }
            (
                if root { PassKind::Root } else { PassKind::Sub },
                parent,
                insns,
            )
        })
}

pub(crate) fn anchor_strategy() -> impl Strategy<Value = Anchor> {
    prop_oneof![
        any::<u32>().prop_map(Anchor),
        (0u32..15, 0u32..8, 0u32..64).prop_map(|(r, p, o)| Anchor(r << 24 | p << 16 | o))
    ]
}

/// A pass set of up to `max_passes` random passes over up to `max_anchors` random
/// anchors.
pub(crate) fn set_strategy(
    max_passes: usize,
    max_anchors: usize,
) -> impl Strategy<Value = PassSet> {
    // Key tables: keys made of 1, 2 and 4-byte values of the frame below (field A)
    // and 0 or another value (field B), so SETs over its fields often hit.
    let value = (0usize..FRAME.len(), 0u32..3).prop_map(|(at, size)| {
        FRAME[at..]
            .iter()
            .take(1 << size)
            .fold(0u32, |v, &b| v << 8 | b as u32)
    });
    let key = (value.clone(), prop_oneof![Just(0u32), value])
        .prop_map(|(a, b)| netsift_isa::set_key(a, b));
    let tables = prop::collection::vec(prop::collection::vec(key, 0..12), 0..3);
    (
        prop::collection::vec(pass_strategy(), 0..max_passes),
        prop::collection::vec(anchor_strategy(), 0..max_anchors),
        tables,
    )
        .prop_map(|(passes, anchors, tables)| {
            let mut set = PassSet::from_raw(passes, anchors).expect("within limits");
            for keys in tables {
                set.add_table(keys).expect("a few small tables");
            }
            set
        })
}

/// An Ethernet + IPv4 (with options) + TCP frame with a payload: loads through
/// real anchors land on real fields.
const FRAME: [u8; 72] = [
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0x08, 0x00, // eth
    0x46, 0x00, 0x00, 0x38, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00, // ipv4, ihl 6
    0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0x01, 0x01, 0x00, 0x00, // addrs, option
    0x00, 0x50, 0x1f, 0x90, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, // tcp ports, seq
    0x50, 0x12, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, // offset 5, flags
    0x47, 0x45, 0x54, 0x20, 0x2f, 0x20, 0x48, 0x54, 0x54, 0x50, 0x0d, 0x0a, 0x00, 0x00,
];

/// A packet (captured bytes) and its wire length: random bytes, or the frame above
/// with a few bytes changed, cut at any length (so headers end mid-field), with a
/// wire length at least the captured length.
pub(crate) fn packet_strategy() -> impl Strategy<Value = (Vec<u8>, u32)> {
    let random = prop::collection::vec(any::<u8>(), 0..200);
    let framed = (
        0usize..=FRAME.len(),
        prop::collection::vec((0usize..FRAME.len(), any::<u8>()), 0..4),
    )
        .prop_map(|(cut, edits)| {
            let mut f = FRAME.to_vec();
            for (i, b) in edits {
                f[i] = b;
            }
            f.truncate(cut);
            f
        });
    (prop_oneof![random, framed], 0u32..100).prop_map(|(p, extra)| {
        let wire = p.len() as u32 + extra;
        (p, wire)
    })
}
