//! `aho_corasick:SET` and `memmem:NAME` against a naive search, on built
//! packets and on every Ethernet packet of the corpus, called directly and
//! from FPL.

mod common;

use common::{call, corpus, naive_find, set, slot, Filter};
use netsift_externs::{Library, PatternSet};
use netsift_testkit::frames::Frame;

/// The leftmost match; among patterns matching there, the first listed.
fn naive_first(hay: &[u8], pats: &[&[u8]]) -> Option<(usize, usize)> {
    (0..hay.len()).find_map(|i| {
        pats.iter()
            .position(|p| hay[i..].starts_with(p))
            .map(|k| (i, k))
    })
}

const PATS: &[&[u8]] = &[
    b"GET /",
    b"HTTP/1.",
    b"\x00\x00\x00\x00\x00\x00\x00\x00",
    b"Host:",
    b"\xff\xff",
    b"ssh-",
    b"GET",
    b"\r\n\r\n",
];

fn library() -> netsift_fpl::externs::Externs {
    let mut lib = Library::new();
    lib.aho_corasick("test", PATS).unwrap();
    lib.memmem("http", b"HTTP/1.").unwrap();
    lib.memmem("ipv4", b"\x08\x00\x45\x00").unwrap();
    lib.registry()
}

#[test]
fn aho_corasick_agrees_with_a_naive_search_on_the_corpus() {
    let Some(packets) = corpus() else { return };
    let reg = library();
    let set = PatternSet::new(PATS).unwrap();
    let mut matched = 0;
    for (n, p) in packets.iter().enumerate() {
        let want = naive_first(p, PATS);
        let got = set.find(p).map(|f| (f.start, f.pattern));
        assert_eq!(got, want, "packet {n}");
        let want = naive_first(&p[..p.len().min(1500)], PATS);
        // Through the function: the whole packet, and a range from byte 14.
        let mut mbuf = [0xaau8; 64];
        set_range(&mut mbuf, 0, 1500);
        let r = call(&reg, "aho_corasick:test", p, &mut mbuf, 0, 16);
        match want {
            Some((at, k)) => {
                matched += 1;
                assert_eq!(r, k as i64 + 1, "packet {n}");
                assert_eq!(slot(&mbuf, 2), at as i64);
                assert_eq!(slot(&mbuf, 3), (at + PATS[k].len()) as i64);
            }
            None => {
                assert_eq!(r, 0, "packet {n}");
                assert!(
                    mbuf[16..32].iter().all(|&b| b == 0xaa),
                    "no match writes nothing"
                );
            }
        }
        set_range(&mut mbuf, 14, 100);
        let tail = &p[p.len().min(14)..p.len().min(114)];
        let want = naive_first(tail, PATS).map(|(at, k)| (at + 14, k));
        let r = call(&reg, "aho_corasick:test", p, &mut mbuf, 0, 16);
        assert_eq!(
            r,
            want.map_or(0, |(_, k)| k as i64 + 1),
            "packet {n} from 14"
        );
        if let Some((at, _)) = want {
            assert_eq!(slot(&mbuf, 2), at as i64);
        }
    }
    eprintln!("{matched} of {} corpus packets match", packets.len());
    assert!(
        matched > 500,
        "the patterns occur in the corpus ({matched})"
    );
}

fn set_range(mbuf: &mut [u8], start: i64, len: i64) {
    set(mbuf, 0, start);
    set(mbuf, 1, len);
}

/// A set too large for the packed searcher runs as an automaton: the same
/// answers as the naive search.
#[test]
fn the_automaton_of_a_large_set_agrees_on_the_corpus() {
    let Some(packets) = corpus() else { return };
    let mut owned: Vec<Vec<u8>> = PATS.iter().map(|p| p.to_vec()).collect();
    for i in 0..70u32 {
        // Short patterns over the bytes headers are made of, so that some match.
        owned.push(vec![0x45, 0, (i * 37 % 256) as u8]);
    }
    let pats: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
    let small = PatternSet::new(PATS).unwrap();
    let large = PatternSet::new(&pats).unwrap();
    assert!(!large.is_packed());
    if !small.is_packed() {
        eprintln!("no SSSE3/AVX2: the small set runs as an automaton too");
    }
    let mut matched = 0;
    for (n, p) in packets.iter().enumerate() {
        let want = naive_first(p, &pats);
        assert_eq!(
            large.find(p).map(|f| (f.start, f.pattern)),
            want,
            "packet {n}"
        );
        matched += usize::from(want.is_some_and(|(_, k)| k >= PATS.len()));
    }
    assert!(matched > 100, "the added patterns match ({matched})");
}

#[test]
fn memmem_agrees_with_a_naive_search_on_the_corpus() {
    let Some(packets) = corpus() else { return };
    let reg = library();
    for (name, needle, least) in [
        ("memmem:http", &b"HTTP/1."[..], 5),
        ("memmem:ipv4", &b"\x08\x00\x45\x00"[..], 2_000),
    ] {
        let mut found = 0;
        for p in &packets {
            let mut mbuf = [0u8; 32];
            set_range(&mut mbuf, 0, i64::MAX);
            let r = call(&reg, name, p, &mut mbuf, 0, 16);
            match naive_find(p, needle) {
                Some(at) => {
                    found += 1;
                    assert_eq!((r, slot(&mbuf, 2)), (1, at as i64));
                }
                None => assert_eq!(r, 0),
            }
        }
        assert!(found >= least, "{name} occurs in the corpus ({found})");
    }
}

#[test]
fn ranges_are_cut_to_the_packet_and_negative_ones_refused() {
    let reg = library();
    let p = Frame::default()
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
        .tcp(1234, 80, 0x18)
        .payload(b"xxGET /index.html HTTP/1.1\r\nHost: a\r\n\r\n")
        .build();
    let at = naive_find(&p, b"GET /").unwrap();
    let mut m = [0u8; 32];
    let cases = [
        (0, 10_000),
        (at as i64, 5),
        (at as i64, 4),     // "GET " only: the shorter `GET` pattern
        (at as i64 + 1, 4), // "ET /"
        (p.len() as i64, 100),
        (p.len() as i64 + 9, 1),
    ];
    for (start, len) in cases {
        let s = (start as usize).min(p.len());
        let e = (s + len as usize).min(p.len());
        let want = naive_first(&p[s..e], PATS).map_or(0, |(_, k)| k as i64 + 1);
        set_range(&mut m, start, len);
        let got = call(&reg, "aho_corasick:test", &p, &mut m, 0, 16);
        assert_eq!(got, want, "range {start}+{len}");
    }
    // The expected answers of the middle cases, spelled out.
    for (start, len, want) in [(at as i64, 5, 1), (at as i64, 4, 7), (at as i64 + 1, 4, 0)] {
        set_range(&mut m, start, len);
        assert_eq!(call(&reg, "aho_corasick:test", &p, &mut m, 0, 16), want);
    }
    for (start, len) in [(-1, 100), (0, -5), (i64::MIN, i64::MAX)] {
        set_range(&mut m, start, len);
        assert_eq!(call(&reg, "aho_corasick:test", &p, &mut m, 0, 16), 0);
    }
}

/// FPL scans the TCP payload of HTTP requests and counts matches per pattern.
#[test]
fn fpl_calls_the_scan_on_the_payload() {
    let reg = library();
    let text = r#"
        IF (PKT.ETH_TYPE == ETH_P_IP && PKT.IP_PROTO == PROTO_TCP) THEN
          MEM[0] = PKT.TCP_PAYLOAD;
          MEM[1] = 1500;
          R[0] = EXTERN("aho_corasick:test", 0, 16);
          IF (R[0]) THEN
            MEM[3 + R[0]]++;
            RETURN R[0];
          FI
        FI
        RETURN 0;
    "#;
    let mut f = Filter::new(text, &reg);
    let mut want = [0i64; 9];
    let bodies: [&[u8]; 5] = [
        b"GET /a HTTP/1.1\r\n",
        b"nothing here",
        b"HTTP/1.0 200 OK\r\n",
        b"zzz ssh-2.0",
        b"",
    ];
    for round in 0..40 {
        let body = bodies[round % bodies.len()];
        let p = Frame::default()
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
            // Header bytes that hold a pattern must not count: only the payload is scanned.
            .tcp(0xffff, 80, 0x18)
            .payload(body)
            .build();
        let expect = naive_first(body, PATS).map_or(0, |(_, k)| k as i64 + 1);
        assert_eq!(
            f.run(&p),
            expect,
            "body {:?}",
            String::from_utf8_lossy(body)
        );
        if expect > 0 {
            want[expect as usize] += 1;
        }
    }
    for (k, &w) in want.iter().enumerate().skip(1) {
        assert_eq!(slot(&f.mbuf, 3 + k), w, "pattern {k}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Small sets (packed) and large ones (automaton) over a small alphabet, so
    /// that patterns overlap and matches are frequent: the naive answer.
    #[test]
    fn random_sets_agree_with_the_naive_search(
        pats in proptest::collection::vec(proptest::collection::vec(0u8..4, 1..6), 1..100),
        hay in proptest::collection::vec(0u8..4, 0..300),
    ) {
        let refs: Vec<&[u8]> = pats.iter().map(Vec::as_slice).collect();
        let set = PatternSet::new(&refs).unwrap();
        let got = set.find(&hay).map(|f| (f.start, f.pattern, f.end));
        let want = naive_first(&hay, &refs).map(|(at, k)| (at, k, at + refs[k].len()));
        proptest::prop_assert_eq!(got, want);
    }
}
