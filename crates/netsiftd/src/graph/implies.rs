//! Whether one pcap expression restricts packets to another's, decided
//! conservatively on their syntax trees (netsift-pcapc's parser): the
//! policy's "only downstream of a filter that restricts to F".
//!
//! `E` restricts to `F` when every packet `E` accepts, `F` accepts. Deciding
//! that in general is deciding implication between filters, which netsift
//! does not try; this module answers *yes* only in cases that are sound by
//! construction, and *no* to everything else (the rule then refuses, and the
//! client can write its filter in the accepted shape):
//!
//! - `E` is `F`: the same tree, spans ignored (so `net 10.1.0.0/16` and
//!   `net  10.1.0.0/16` are the same, `net 10.1/16` is not, and `host a or b`
//!   is `host a or host b` because the parser gives both the same tree);
//! - `E` is `L and R` and `L` restricts to `F`: `E` accepts only what `L`
//!   does, and `L` is evaluated first, as it would be alone;
//! - `E` is `L and R` and `R` restricts to `F`, provided evaluating `L` first
//!   cannot change what `F` means: `L` holds none of `vlan`, `mpls`, `pppoes`
//!   or `geneve` (which move the offsets of everything after them, in libpcap
//!   as in netsift), and `F` holds no `byte N & M` or `byte N | M` (which test
//!   the value the program loaded last, not a byte of their own).
//!
//! Everything else is *no*: `or` (`F or G` accepts what `F` does not), `not`
//! (`not not F` included), a conjunct under `or` or `not`, `and` grouped
//! otherwise than `F` is, and any rewriting (`F` with its operands swapped).
//! Lowering would be the next step (comparing predicates), at the price of
//! a second meaning of the language here.

use netsift_pcapc::syntax::ast::{Arith, ByteOp, Expr, PrimKind};

/// Whether every packet `e` accepts, `f` accepts, as far as the rules in
/// the module comment can tell.
pub(crate) fn restricts(e: &Expr, f: &Expr) -> bool {
    if same(e, f) {
        return true;
    }
    match e {
        Expr::And(l, r) => {
            restricts(l, f) || (!shifts(l) && !reads_last_load(f) && restricts(r, f))
        }
        _ => false,
    }
}

/// The same tree, spans aside.
fn same(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::And(a1, a2), Expr::And(b1, b2)) | (Expr::Or(a1, a2), Expr::Or(b1, b2)) => {
            same(a1, b1) && same(a2, b2)
        }
        (Expr::Not(a, _), Expr::Not(b, _)) => same(a, b),
        (Expr::Prim(a), Expr::Prim(b)) => same_prim(&a.kind, &b.kind),
        _ => false,
    }
}

fn same_prim(a: &PrimKind, b: &PrimKind) -> bool {
    match (a, b) {
        (
            PrimKind::Qualified {
                qual: qa, id: ia, ..
            },
            PrimKind::Qualified {
                qual: qb, id: ib, ..
            },
        ) => qa == qb && ia == ib,
        (
            PrimKind::Relation {
                op: oa,
                lhs: la,
                rhs: ra,
            },
            PrimKind::Relation {
                op: ob,
                lhs: lb,
                rhs: rb,
            },
        ) => oa == ob && same_arith(la, lb) && same_arith(ra, rb),
        // Text the compiler refuses means nothing to compare.
        (PrimKind::Unsupported(_), _) => false,
        // The other kinds hold no span: their own equality is the tree's.
        _ => a == b,
    }
}

fn same_arith(a: &Arith, b: &Arith) -> bool {
    match (a, b) {
        (Arith::Num(x, _), Arith::Num(y, _)) => x == y,
        (Arith::Len(_), Arith::Len(_)) => true,
        (
            Arith::Load {
                proto: pa,
                index: ia,
                size: sa,
                ..
            },
            Arith::Load {
                proto: pb,
                index: ib,
                size: sb,
                ..
            },
        ) => pa == pb && sa == sb && same_arith(ia, ib),
        (Arith::Neg(x, _), Arith::Neg(y, _)) => same_arith(x, y),
        (Arith::Bin(oa, a1, a2), Arith::Bin(ob, b1, b2)) => {
            oa == ob && same_arith(a1, b1) && same_arith(a2, b2)
        }
        _ => false,
    }
}

/// Whether `e` anywhere moves the offsets of what follows it.
fn shifts(e: &Expr) -> bool {
    any_prim(e, &|k| {
        matches!(
            k,
            PrimKind::Vlan(_) | PrimKind::Mpls(_) | PrimKind::Pppoes(_) | PrimKind::Geneve(_)
        )
    })
}

/// Whether `e` anywhere tests the value loaded before it.
fn reads_last_load(e: &Expr) -> bool {
    any_prim(e, &|k| {
        matches!(
            k,
            PrimKind::Byte {
                op: ByteOp::And | ByteOp::Or,
                ..
            }
        )
    })
}

fn any_prim(e: &Expr, test: &dyn Fn(&PrimKind) -> bool) -> bool {
    match e {
        Expr::And(a, b) | Expr::Or(a, b) => any_prim(a, test) || any_prim(b, test),
        Expr::Not(a, _) => any_prim(a, test),
        Expr::Prim(p) => test(&p.kind),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> Expr {
        netsift_pcapc::syntax::parse(text).unwrap().unwrap()
    }

    fn yes(e: &str, f: &str) -> bool {
        restricts(&tree(e), &tree(f))
    }

    const F: &str = "net 10.1.0.0/16";

    #[test]
    fn the_filter_itself_and_conjunctions_holding_it() {
        assert!(yes(F, F));
        assert!(yes("net   10.1.0.0/16", F), "spaces are not the tree");
        assert!(yes("(net 10.1.0.0/16)", F), "nor are parentheses");
        assert!(yes("net 10.1.0.0/16 and tcp", F));
        assert!(yes("tcp and net 10.1.0.0/16", F));
        assert!(yes("tcp and port 80 and net 10.1.0.0/16", F));
        assert!(yes("tcp and (net 10.1.0.0/16 and port 80)", F));
        assert!(yes("(tcp and net 10.1.0.0/16) and port 80", F));
        assert!(yes("tcp[13] & 2 != 0 and net 10.1.0.0/16", F));
        // F itself a conjunction, as grouped.
        assert!(yes("udp and port 53 and len > 100", "udp and port 53"));
        assert!(yes("host a or b", "host a or host b"), "one tree");
    }

    #[test]
    fn or_not_and_other_groupings_are_no() {
        assert!(!yes("net 10.1.0.0/16 or tcp", F));
        assert!(!yes("tcp or net 10.1.0.0/16", F));
        assert!(!yes("not net 10.1.0.0/16", F));
        assert!(!yes("not not net 10.1.0.0/16", F), "true, but not decided");
        assert!(!yes("not (tcp or not net 10.1.0.0/16)", F));
        assert!(!yes("(net 10.1.0.0/16 or udp) and tcp", F));
        assert!(!yes("tcp and (net 10.1.0.0/16 or udp)", F));
        assert!(!yes("net 10.1.0.0/24", F), "a narrower net is not compared");
        assert!(!yes("net 10.1/16", F), "another spelling is another tree");
        assert!(!yes("src net 10.1.0.0/16", F));
        assert!(!yes("tcp", F));
        assert!(!yes(
            "udp and port 53 and len > 100",
            "port 53 and len > 100"
        ));
        assert!(!yes("port 53 and udp", "udp and port 53"), "no rewriting");
        assert!(!yes("len > 100", "len > 101"));
        assert!(yes("len > 100", "len > 100"));
    }

    #[test]
    fn a_conjunct_after_an_offset_shift_does_not_count() {
        assert!(!yes("vlan and net 10.1.0.0/16", F));
        assert!(!yes("vlan 10 and tcp and net 10.1.0.0/16", F));
        assert!(!yes("mpls and net 10.1.0.0/16", F));
        assert!(!yes("pppoes and net 10.1.0.0/16", F));
        assert!(!yes("geneve and net 10.1.0.0/16", F));
        assert!(!yes("(tcp or vlan) and net 10.1.0.0/16", F));
        // Before the shift it counts; F's own shift is F's meaning.
        assert!(yes("net 10.1.0.0/16 and vlan", F));
        assert!(!yes("tcp and vlan and net 10", "vlan and net 10"));
        assert!(yes("vlan and net 10 and tcp", "vlan and net 10"));
        assert!(yes("tcp and vlan and net 10", "vlan"));
    }

    #[test]
    fn a_test_of_the_last_load_counts_only_first() {
        let f = "byte 2 & 4";
        assert!(yes("byte 2 & 4 and tcp", f));
        assert!(!yes("tcp and byte 2 & 4", f), "it would test tcp's load");
        assert!(
            yes("tcp and byte 2 = 4", "byte 2 = 4"),
            "= loads its own byte"
        );
    }
}
