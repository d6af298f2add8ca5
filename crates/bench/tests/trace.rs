//! The static-filtering trace (`gen-trace`): determinism, well-formed frames, and the
//! selectivity bounds of the Swift paper's six filters (each of filters 2-6 accepts
//! between 2% and 70% of the packets, filter 1 all of them), counted by netsift and by
//! libpcap alike.

use std::collections::HashSet;

use netsift_bench::gen::packet::{internet_checksum, transport_checksum};
use netsift_bench::gen::trace::{
    seeds_filters, trace, TraceConfig, TraceGen, TraceStats, SEEDS_HOSTS, SEEDS_HOSTS_PRESENT,
};
use netsift_bench::static_bench::selectivities;
use std::net::Ipv4Addr;

fn cfg(packets: usize, snaplen: u32, seed: u64) -> TraceConfig {
    TraceConfig {
        packets,
        snaplen,
        seed,
        ..TraceConfig::default()
    }
}

#[test]
fn same_configuration_same_bytes_and_snaplen_only_cuts() {
    let a = trace(&cfg(30_000, 75, 7));
    let b = trace(&cfg(30_000, 75, 7));
    assert_eq!(a.len(), 30_000);
    assert!(a == b, "the trace is not deterministic");
    let c = trace(&cfg(30_000, 75, 8));
    assert!(a != c, "the seed changes nothing");
    let full = trace(&cfg(30_000, 65535, 7));
    let mut cut = 0;
    for (s, f) in a.iter().zip(&full) {
        assert_eq!(s.ts_ns, f.ts_ns);
        assert_eq!(s.orig_len, f.orig_len);
        assert_eq!(f.data.len() as u32, f.orig_len);
        assert_eq!(s.data.len(), f.data.len().min(75));
        assert_eq!(s.data[..], f.data[..s.data.len()]);
        cut += usize::from(s.data.len() < f.data.len());
    }
    assert!(cut > 10_000, "most frames are longer than 75 bytes ({cut})");
    // A prefix of a longer trace is the shorter trace.
    let longer: Vec<_> = TraceGen::new(&cfg(0, 75, 7)).take(30_000).collect();
    assert!(longer == a);
}

#[test]
fn time_stamps_rise_in_whole_microseconds() {
    let t = trace(&cfg(50_000, 75, 1));
    assert!(t.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns));
    assert!(t.iter().all(|p| p.ts_ns % 1000 == 0));
    let span = (t.last().unwrap().ts_ns - t[0].ts_ns) as f64 / 1e9;
    // 250 000 packets per second on average.
    assert!((0.15..0.25).contains(&span), "span {span} s");
}

/// Verifies the IPv4, TCP, UDP, ICMP and IPv6 checksums of an untruncated frame.
fn check_frame(f: &[u8]) -> Result<(), String> {
    let (et, l3) = match u16::from_be_bytes([f[12], f[13]]) {
        0x8100 => (u16::from_be_bytes([f[16], f[17]]), 18),
        et => (et, 14),
    };
    match et {
        0x0800 => {
            let ihl = 4 * (f[l3] & 0xf) as usize;
            let total = u16::from_be_bytes([f[l3 + 2], f[l3 + 3]]) as usize;
            if internet_checksum(&f[l3..l3 + ihl]) != 0 {
                return Err("IPv4 header checksum".into());
            }
            let frag = u16::from_be_bytes([f[l3 + 6], f[l3 + 7]]);
            if frag & 0x3fff != 0 {
                return Ok(()); // a fragment: the transport checksum spans fragments
            }
            let src = Ipv4Addr::new(f[l3 + 12], f[l3 + 13], f[l3 + 14], f[l3 + 15]);
            let dst = Ipv4Addr::new(f[l3 + 16], f[l3 + 17], f[l3 + 18], f[l3 + 19]);
            let l4 = &f[l3 + ihl..l3 + total];
            let ok = match f[l3 + 9] {
                6 | 17 => transport_checksum(src, dst, f[l3 + 9], l4) == 0,
                1 | 2 => internet_checksum(l4) == 0,
                _ => true,
            };
            if ok {
                Ok(())
            } else {
                Err(format!("IPv4 protocol {} checksum", f[l3 + 9]))
            }
        }
        0x86dd => {
            let plen = u16::from_be_bytes([f[l3 + 4], f[l3 + 5]]) as usize;
            let nh = f[l3 + 6];
            let mut acc: u64 = 0;
            let mut add = |d: &[u8]| {
                for c in d.chunks(2) {
                    acc += u64::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
                }
            };
            add(&f[l3 + 8..l3 + 40]);
            add(&f[l3 + 40..l3 + 40 + plen]);
            acc += plen as u64 + u64::from(nh);
            while acc > 0xffff {
                acc = (acc & 0xffff) + (acc >> 16);
            }
            if acc as u16 == 0xffff {
                Ok(())
            } else {
                Err(format!("IPv6 next header {nh} checksum"))
            }
        }
        _ => Ok(()),
    }
}

#[test]
fn full_frames_have_correct_checksums_and_a_realistic_mix() {
    let t = trace(&cfg(100_000, 65535, 3));
    let mut st = TraceStats::default();
    for (i, p) in t.iter().enumerate() {
        assert!(p.data.len() >= 60, "packet {i} is shorter than 60 bytes");
        assert!(p.data.len() <= 1518, "packet {i} is longer than 1518 bytes");
        if let Err(e) = check_frame(&p.data) {
            panic!(
                "packet {i}: bad {e}: {:02x?}",
                &p.data[..p.data.len().min(80)]
            );
        }
        st.add(p);
    }
    let pc = |n: u64| 100.0 * n as f64 / st.packets as f64;
    eprintln!("{}", st.summary());
    assert!(pc(st.ipv4) > 50.0 && pc(st.ipv6) > 10.0, "{}", st.summary());
    assert!(
        pc(st.vlan) > 3.0 && pc(st.arp) > 0.5 && st.other > 0,
        "{}",
        st.summary()
    );
    assert!(
        pc(st.tcp) > 50.0 && pc(st.udp) > 5.0 && st.icmp > 0,
        "{}",
        st.summary()
    );
    assert!(st.fragments > 0, "{}", st.summary());
    let mean = st.wire_bytes as f64 / st.packets as f64;
    assert!((300.0..1100.0).contains(&mean), "mean size {mean}");
}

#[test]
fn the_seeds_filters_accept_between_2_and_70_percent() {
    let filters = seeds_filters();
    assert_eq!(filters.len(), 6);
    assert_eq!(
        filters.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6]
    );
    assert_eq!(filters[0].1, "");
    assert_eq!(filters[5].1.matches(" or ").count(), 2 + 37);

    // The benchmark's own trace: the default configuration.
    let t = trace(&TraceConfig::default());
    assert_eq!(t.len(), 1_000_000);
    let sel = selectivities(&t).expect("both compile the filters");
    for s in &sel {
        eprintln!(
            "filter {}: {:.2}% (netsift {}, libpcap {})",
            s.id,
            100.0 * s.ratio(),
            s.netsift,
            s.libpcap
        );
        assert_eq!(s.netsift, s.libpcap, "filter {}", s.id);
        if s.id == 1 {
            assert_eq!(s.libpcap, s.packets);
        } else {
            assert!(
                (0.02..=0.70).contains(&s.ratio()),
                "filter {} accepts {:.2}%",
                s.id,
                100.0 * s.ratio()
            );
        }
    }

    // Filter 6's addresses: the first 20 take part, the other 18 never appear.
    let mut seen = HashSet::new();
    for p in &t {
        let d = &p.data;
        if d[12..14] == [0x08, 0x00] {
            seen.insert([d[26], d[27], d[28], d[29]]);
            seen.insert([d[30], d[31], d[32], d[33]]);
        }
    }
    for (i, h) in SEEDS_HOSTS.iter().enumerate() {
        assert_eq!(
            seen.contains(h),
            i < SEEDS_HOSTS_PRESENT,
            "{} (index {i})",
            Ipv4Addr::from(*h)
        );
    }
}

#[test]
fn the_full_length_variant_has_the_same_bounds() {
    let t = trace(&cfg(200_000, 65535, 1));
    for s in selectivities(&t).expect("compiles") {
        assert_eq!(s.netsift, s.libpcap, "filter {}", s.id);
        if s.id > 1 {
            assert!((0.02..=0.70).contains(&s.ratio()), "filter {}", s.id);
        }
    }
}
