//! Arithmetic longer than one ARITH slot: the head, the CONT slots its offset field
//! counts, and how chains sit in passes (hierarchical sharing never splits one, a
//! long conjunction still ends in a GROUP). Verdicts are checked against libpcap by
//! the conformance tests (`long_arith.rs`, the built-in corpus expressions).

use netsift_isa::{Instruction, Opcode, PassSet};
use netsift_pcapc::compile;
use netsift_wire::LinkType;

fn sum(n: usize) -> String {
    (0..n)
        .map(|i| format!("ip[{i}]"))
        .collect::<Vec<_>>()
        .join(" + ")
}

fn op(i: &Instruction) -> Option<Opcode> {
    i.decode().opcode
}

/// Every ARITH's CONT slots are in its pass and are CONTs, every CONT belongs to an
/// ARITH, and a copied ARITH has its whole chain copied.
fn chains_well_formed(set: &PassSet) -> usize {
    let mut chains = 0;
    for p in set.passes() {
        let is = p.instructions();
        let mut owned = vec![false; is.len()];
        for (k, i) in is.iter().enumerate() {
            if op(i) != Some(Opcode::Arith) {
                continue;
            }
            let ext = i.arith_ext();
            chains += (ext > 0) as usize;
            assert!(k + ext < is.len(), "chain past the pass end:\n{set}");
            for j in k + 1..=k + ext {
                assert_eq!(op(&is[j]), Some(Opcode::ArithCont), "{set}");
                assert_eq!(
                    is[j].copied(),
                    i.copied(),
                    "a chain split by sharing:\n{set}"
                );
                owned[j] = true;
            }
        }
        for (k, i) in is.iter().enumerate() {
            assert!(
                op(i) != Some(Opcode::ArithCont) || owned[k],
                "stray CONT:\n{set}"
            );
        }
    }
    chains
}

#[test]
fn long_sums_continue_in_cont_slots() {
    let set = compile(&format!("{} > 1000", sum(20)), LinkType::EN10MB).unwrap();
    assert_eq!(chains_well_formed(&set), 1);
    let head = set.passes()[0]
        .instructions()
        .iter()
        .find(|i| op(i) == Some(Opcode::Arith))
        .unwrap();
    // 20 loads (push, ld), 19 adds, the constant: 60 micro-ops, 14 a slot.
    assert_eq!(head.arith_ext(), 4, "{set}");
    // Short arithmetic stays one slot.
    let one = compile(
        "tcp[((tcp[12] & 0xf0) >> 2):4] = 0x47455420",
        LinkType::EN10MB,
    )
    .unwrap();
    assert_eq!(chains_well_formed(&one), 0);
}

#[test]
fn sharing_never_ends_inside_a_chain() {
    // The two relations differ only in their constant, which sits in the last slot:
    // the second pass shares the protocol test, not the head of the chain.
    let e = format!("({0} > 500 and tcp) or ({0} > 600 and udp)", sum(12));
    let set = compile(&e, LinkType::EN10MB).unwrap();
    assert!(chains_well_formed(&set) >= 2, "{set}");
    // The same relation in both alternatives: the whole chain is shared.
    let e = format!("({0} > 500 and tcp) or ({0} > 500 and udp)", sum(12));
    let set = compile(&e, LinkType::EN10MB).unwrap();
    chains_well_formed(&set);
    for e in [
        format!("({0} = 7 or {0} = 9) and not {1} > 3", sum(10), sum(11)),
        format!("not ({0} > 1 and {0} > 2) or tcp port 80", sum(9)),
        format!("(vlan and {0} > 1) or (mpls and {0} > 1)", sum(9)),
    ] {
        chains_well_formed(&compile(&e, LinkType::EN10MB).unwrap());
    }
}

#[test]
fn a_pass_with_a_long_chain_still_ends_in_a_group() {
    // 144 loads take 31 slots; the IPv4 test before and the TCP tests after do not fit
    // one pass with it, so the rest moves into a GROUP.
    let set = compile(
        &format!("{} > 1000 and tcp port 80", sum(144)),
        LinkType::EN10MB,
    )
    .unwrap();
    assert_eq!(chains_well_formed(&set), 1);
    assert!(set
        .passes()
        .iter()
        .all(|p| p.len() <= netsift_isa::MAX_INSNS));
    // One more load needs 32 slots: refused with the count, not a panic.
    let err = compile(&format!("{} > 1000", sum(145)), LinkType::EN10MB).unwrap_err();
    assert!(err.to_string().contains("435 micro-ops"), "{err}");
}
