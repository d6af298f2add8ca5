//! Static key tables of a `PassSet`: adding, sharing, the limit, and the listing.

use netsift_isa::insn::build::{self, Field};
use netsift_isa::{set_key, PassKind, PassSet, Size, UpdateError, MAX_TABLES};

#[test]
fn tables_are_added_shared_and_limited() {
    let mut set = PassSet::new();
    assert!(set.tables().is_empty());
    assert_eq!(set.table_contains(0, 0), None);
    let t0 = set
        .add_table([set_key(1, 0), set_key(2, 0), set_key(1, 0)])
        .unwrap();
    let t1 = set.add_table([set_key(1, 7)]).unwrap();
    assert_eq!((t0, t1), (0, 1));
    // The same keys in another order are the same table.
    assert_eq!(set.add_table([set_key(2, 0), set_key(1, 0)]), Ok(0));
    assert_eq!(set.tables()[0].keys(), &[set_key(1, 0), set_key(2, 0)]);
    assert_eq!(set.table_contains(0, set_key(2, 0)), Some(true));
    assert_eq!(set.table_contains(0, set_key(2, 1)), Some(false));
    assert_eq!(set.table_contains(1, set_key(1, 7)), Some(true));
    assert_eq!(set.table_contains(2, set_key(1, 7)), None);
    for i in 2..MAX_TABLES as u32 {
        assert_eq!(set.add_table([set_key(i, i)]), Ok(i));
    }
    let before = set.clone();
    assert_eq!(
        set.add_table([set_key(0, 0)]),
        Err(UpdateError::TooManyTables)
    );
    assert_eq!(set, before);
    assert!(UpdateError::TooManyTables.to_string().contains("tables"));
}

#[test]
fn the_listing_shows_a_table_by_its_size_and_first_keys() {
    let mut set = PassSet::new();
    let t = set
        .add_table((0..100_000u32).map(|i| set_key(0x0a00_0000 + i, 0)))
        .unwrap();
    let a = Field {
        anchor: 0,
        offset: 26,
        size: Size::B4,
    };
    let p = set.push_pass(PassKind::Root, None).unwrap();
    set.push_insn(
        p,
        build::set(t, a, u32::MAX, None, 0, Some((4, 0))).unwrap(),
    )
    .unwrap();
    set.add_table([set_key(5, 6)]).unwrap();
    let l = set.to_string();
    assert!(
        l.contains("set #0 key [26:4] & 0xffffffff or pair at [+4], [+0]"),
        "{l}"
    );
    assert!(
        l.contains("tables:\n  #0: 100000 keys {0xa000000, 0xa000001, 0xa000002, 0xa000003, …}\n"),
        "{l}"
    );
    // Keys with a field B show both halves.
    assert!(l.contains("  #1: 1 keys {0x5:0x6}\n"), "{l}");
    assert!(l.len() < 400, "the listing stays short: {} bytes", l.len());
}
