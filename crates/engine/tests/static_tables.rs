//! SET on static pass sets: key tables held by the `PassSet`, looked up by the
//! per-packet interpreter, the decoded form, the batch engine (which runs SET per lane
//! through the interpreter) and, after `Writer::add_clause` copies them into live
//! tables, by a live reader. All four must agree, faults included.

use netsift_engine::live::{self, LiveErrorKind};
use netsift_engine::{evaluate, BatchScratch, Compiled, Scratch, Verdict};
use netsift_isa::insn::build::{self, Field};
use netsift_isa::{set_key, PassKind, PassSet, Size};

/// A 12-byte packet: a 16-bit port at 0, a 32-bit "src" at 2, a 32-bit "dst" at 6.
fn pkt(src: u32, dst: u32, port: u16) -> Vec<u8> {
    let mut p = vec![0u8; 12];
    p[0..2].copy_from_slice(&port.to_be_bytes());
    p[2..6].copy_from_slice(&src.to_be_bytes());
    p[6..10].copy_from_slice(&dst.to_be_bytes());
    p
}

const A: Field = Field {
    anchor: 0,
    offset: 2,
    size: Size::B4,
};

fn port(v: u32) -> netsift_isa::Instruction {
    build::eq(0, 0, Size::B2, 0xffff, &[v]).unwrap()
}

/// `port 9 and (src or dst in 10,000 keys)`, the SET after an EQ, plus a second pass
/// `port 7 and src in a missing table` (an invalid SET: false, never a fault).
fn block_list() -> (PassSet, Vec<u32>) {
    let hosts: Vec<u32> = (0..10_000u32).map(|i| 0x0a00_0000 + 3 * i).collect();
    let mut set = PassSet::new();
    let t = set.add_table(hosts.iter().map(|&h| set_key(h, 0))).unwrap();
    assert_eq!(t, 0);
    // An equal table is shared, not added again.
    assert_eq!(
        set.add_table(hosts.iter().rev().map(|&h| set_key(h, 0))),
        Ok(0)
    );
    let p = set.push_pass(PassKind::Root, None).unwrap();
    set.push_insn(p, port(9)).unwrap();
    set.push_insn(
        p,
        build::set(t, A, u32::MAX, None, 0, Some((4, 0))).unwrap(),
    )
    .unwrap();
    let q = set.push_pass(PassKind::Root, None).unwrap();
    set.push_insn(q, port(7)).unwrap();
    set.push_insn(q, build::set(5, A, u32::MAX, None, 0, None).unwrap())
        .unwrap();
    (set, hosts)
}

#[test]
fn set_on_a_static_set_agrees_everywhere() {
    let (set, hosts) = block_list();
    assert_eq!(set.tables()[0].len(), hosts.len());
    let listing = set.to_string();
    assert!(
        listing.contains("#0: 10000 keys {0xa000000, 0xa000003"),
        "{listing}"
    );
    let compiled = Compiled::new(set.clone());
    let (mut w, r) = live::new();
    w.add_clause(&set).unwrap();

    let (inside, outside) = (hosts[7777], hosts[7777] + 1);
    // (packet, captured bytes, expected verdict)
    let cases = [
        (pkt(inside, 1, 9), 12, true),
        (pkt(1, inside, 9), 12, true),
        (pkt(outside, 1, 9), 12, false),
        (pkt(inside, 1, 8), 12, false),
        // src in the table: dst is never loaded, so cutting it off changes nothing.
        (pkt(inside, 1, 9), 6, true),
        // Port checked first, then src is not in the table and dst is cut off: fault.
        (pkt(outside, 1, 9), 6, false),
        // Pass 0 stops at its port; pass 1's SET names no table: false, not a fault.
        (pkt(outside, 1, 7), 6, false),
        // The missing table: false, whatever the key.
        (pkt(inside, 1, 7), 12, false),
    ];
    let (mut s1, mut s2, mut s3) = (Scratch::new(), Scratch::new(), Scratch::new());
    let mut b = BatchScratch::new();
    let mut datas = Vec::new();
    for (p, cut, want) in &cases {
        let data = p[..*cut].to_vec();
        let got = [
            evaluate(&set, &mut s1, &data, 12) == Verdict::Accept,
            compiled.matches(&mut s2, &data, 12),
            r.matches(&mut s3, &data, 12),
        ];
        assert_eq!(got, [*want; 3], "{data:02x?}");
        datas.push(data);
    }
    let refs: Vec<&[u8]> = datas.iter().map(Vec::as_slice).collect();
    let wires = vec![12; refs.len()];
    let mut out = Vec::new();
    compiled.filter_many(&mut b, &refs, &wires, &mut out);
    let want: Vec<bool> = cases.iter().map(|c| c.2).collect();
    assert_eq!(out, want);
}

#[test]
fn a_live_set_refuses_tables_past_its_limit_clearly() {
    let (set, _) = block_list();
    let (mut w, _r) = live::new();
    let mut added = 0;
    let err = loop {
        match w.add_clause(&set) {
            Ok(_) => added += 1,
            Err(e) => break e,
        }
        assert!(added <= live::MAX_TABLES, "no limit");
    };
    assert_eq!(added, live::MAX_TABLES);
    assert_eq!(err.kind(), &LiveErrorKind::TooManyTables);
    assert!(err.to_string().contains("tables"), "{err}");
}

#[test]
fn a_set_without_tables_keeps_naming_live_tables() {
    // The followers build such clauses: a SET naming a table made by `create_table`.
    let (mut w, r) = live::new();
    let t = w.create_table(16).unwrap();
    w.table_insert(t, set_key(0x0a00_0001, 0)).unwrap();
    let mut set = PassSet::new();
    let p = set.push_pass(PassKind::Root, None).unwrap();
    set.push_insn(p, build::set(t, A, u32::MAX, None, 0, None).unwrap())
        .unwrap();
    w.add_clause(&set).unwrap();
    let mut s = Scratch::new();
    assert!(r.matches(&mut s, &pkt(0x0a00_0001, 0, 0), 12));
    assert!(!r.matches(&mut s, &pkt(0x0a00_0002, 0, 0), 12));
}
