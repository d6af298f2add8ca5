//! `topn` and `topn_key`: exact counts while the flows fit, the Space-Saving
//! guarantees when they do not (against exact counts kept here), the layout
//! an application reads, and FPL calling them.

mod common;

use common::{call, slot, Filter};
use netsift_externs::topn::{count, table_len};
use netsift_externs::{standard, Library};
use netsift_testkit::frames::Frame;
use std::collections::HashMap;

/// The entries of a table: (src, dst, sport, dport, count) with count > 0.
fn entries(table: &[u8]) -> Vec<(u32, u32, u16, u16, u32)> {
    table[8..]
        .chunks_exact(16)
        .map(|e| {
            let u32_at = |i: usize| u32::from_le_bytes(e[i..i + 4].try_into().unwrap());
            let u16_at = |i: usize| u16::from_le_bytes(e[i..i + 2].try_into().unwrap());
            (u32_at(0), u32_at(4), u16_at(8), u16_at(10), u32_at(12))
        })
        .filter(|e| e.4 > 0)
        .collect()
}

fn flow(src: u8, sport: u16) -> Vec<u8> {
    Frame::default()
        .ipv4([10, 0, 0, src], [192, 168, 1, 1])
        .tcp(sport, 80, 0x10)
        .build()
}

/// A deterministic stream over `flows` flows, skewed so that a few are heavy.
fn stream(len: usize, flows: u32, seed: u64) -> Vec<u32> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Squaring a uniform value in [0, 1) skews towards 0.
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            ((u * u * u) * f64::from(flows)) as u32
        })
        .collect()
}

#[test]
fn exact_while_the_flows_fit() {
    let reg = standard();
    let mut m = vec![0u8; table_len(10)];
    let mut want: HashMap<(u8, u16), u32> = HashMap::new();
    for (i, k) in stream(500, 10, 7).into_iter().enumerate() {
        let (src, sport) = (k as u8 + 1, 1000 + k as u16);
        let c = call(&reg, "topn", &flow(src, sport), &mut m, 0, 0);
        let w = want.entry((src, sport)).or_default();
        *w += 1;
        assert_eq!(c, i64::from(*w), "packet {i}");
    }
    assert_eq!(slot(&m, 0), 500, "header: packets counted");
    let mut got = entries(&m);
    got.sort();
    let mut exp: Vec<_> = want
        .iter()
        .map(|(&(src, sport), &c)| {
            (
                u32::from_be_bytes([10, 0, 0, src]),
                u32::from_be_bytes([192, 168, 1, 1]),
                sport,
                80,
                c,
            )
        })
        .collect();
    exp.sort();
    assert_eq!(got, exp);
    // Not IPv4 TCP: nothing counted, the header unchanged.
    let udp = Frame::default()
        .ipv4([1, 1, 1, 1], [2, 2, 2, 2])
        .udp(1, 2)
        .build();
    assert_eq!(call(&reg, "topn", &udp, &mut m, 0, 0), 0);
    assert_eq!(slot(&m, 0), 500);
}

#[test]
fn space_saving_bounds_hold_on_a_skewed_stream() {
    const N: usize = 16;
    for seed in 1..6 {
        let keys = stream(20_000, 400, seed);
        let mut exact: HashMap<u32, u32> = HashMap::new();
        let mut table = vec![0u8; table_len(N)];
        for &k in &keys {
            *exact.entry(k).or_default() += 1;
            let mut key = [0u8; 12];
            key[..4].copy_from_slice(&k.to_le_bytes());
            assert!(count(&mut table, &key) >= 1);
        }
        let got = entries(&table);
        assert_eq!(got.len(), N);
        let total = keys.len() as u32;
        let least = got.iter().map(|e| e.4).min().unwrap();
        let counted: u64 = got.iter().map(|e| u64::from(e.4)).sum();
        assert_eq!(
            counted,
            u64::from(total),
            "Space-Saving's counts add up to the stream"
        );
        for e in &got {
            let truth = exact[&e.0];
            // Never under, and over by at most the least count.
            assert!(
                e.4 >= truth && e.4 - truth <= least,
                "seed {seed}: {e:?} truth {truth}"
            );
        }
        for (&k, &c) in &exact {
            if c > total / N as u32 {
                assert!(
                    got.iter().any(|e| e.0 == k),
                    "seed {seed}: heavy key {k} ({c}) kept"
                );
            }
        }
    }
}

#[test]
fn any_table_content_is_accepted() {
    let mut t = vec![0xffu8; table_len(4)];
    // Every entry full at u32::MAX: a new key replaces one and stays saturated.
    assert_eq!(count(&mut t, &[1; 12]), u32::MAX);
    assert_eq!(count(&mut t, &[1; 12]), u32::MAX);
    assert_eq!(count(&mut [0u8; 7], &[1; 12]), 0, "shorter than the header");
    assert_eq!(count(&mut [0u8; 8], &[1; 12]), 0, "no entries");
    assert_eq!(count(&mut [0u8; 20], &[1; 12]), 0, "not a whole entry");
}

/// The seeds' Figure 2b idea: one filter counts per flow in MBuf, the
/// application reads the top 3 straight from MBuf; and `topn_key` by source.
#[test]
fn fpl_keeps_the_top_flows() {
    let mut lib = Library::new();
    lib.topn(3).unwrap();
    let reg = lib.registry();
    let mut f = Filter::new(
        "IF (PKT.ETH_TYPE == ETH_P_IP) THEN \
           R[0] = EXTERN(topn, 0, 64); \
           MEM[0] = PKT.IP_SRC; R[1] = EXTERN(topn_key, 0, 128); \
         FI RETURN R[0] >= 5;",
        &reg,
    );
    let mut passed = 0;
    for i in 0..60u16 {
        let src = [1, 1, 1, 1, 2, 2, 3, 4, 5, 6][usize::from(i % 10)];
        passed += usize::from(f.run(&flow(src, 7)) != 0);
    }
    // Source 1 sends 24 of 60 packets, more than 60 / 3: kept, and exact since
    // it is never the least. The other five share two entries, evicting each other.
    let top = entries(&f.mbuf[64..64 + table_len(3)]);
    assert_eq!(top.len(), 3);
    let c = |src: u8| {
        top.iter()
            .find(|e| e.0 == u32::from_be_bytes([10, 0, 0, src]))
            .map(|e| e.4)
    };
    assert_eq!(c(1), Some(24));
    assert_eq!(top.iter().map(|e| e.4).sum::<u32>(), 60);
    assert_eq!(slot(&f.mbuf, 8), 60);
    let by_src = entries(&f.mbuf[128..128 + table_len(3)]);
    assert!(by_src
        .iter()
        .any(|e| e.0 == u32::from_be_bytes([10, 0, 0, 1]) && e.4 == 24));
    assert!(
        passed >= 20,
        "source 1 passes from its fifth packet on ({passed})"
    );
    // The application's view of MEM: slot 9 is entry 0's address pair.
    let pair = slot(&f.mbuf, 9);
    assert!(top
        .iter()
        .any(|e| i64::from(e.0) | i64::from(e.1) << 32 == pair));
}
