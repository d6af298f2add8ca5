//! `hash`, `flow_hash`, `checksum` and `checksums_ok` against computations
//! written here from the RFCs, on built frames and on the corpus.

mod common;

use common::{call, corpus, set, Filter};
use netsift_externs::standard;
use netsift_testkit::frames::Frame;

/// FNV-1a 32 written from its definition.
fn fnv(bytes: &[u8]) -> u32 {
    let mut h: u32 = 2_166_136_261;
    for &b in bytes {
        h ^= u32::from(b);
        h = h.wrapping_mul(16_777_619);
    }
    h
}

/// RFC 1071: the complement of the ones'-complement sum of 16-bit words.
fn rfc1071(bytes: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for (i, &b) in bytes.iter().enumerate() {
        sum += if i % 2 == 0 {
            u32::from(b) << 8
        } else {
            u32::from(b)
        };
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Independent verification of a plain (untagged) Ethernet/IPv4 frame:
/// `Some(ok)` when the frame is whole IPv4, else `None`.
fn naive_verify(f: &[u8]) -> Option<bool> {
    if f.get(12..14)? != [8, 0] {
        return None;
    }
    let ip = &f[14..];
    let ihl = usize::from(*ip.first()? & 15) * 4;
    let total = usize::from(u16::from_be_bytes([*ip.get(2)?, *ip.get(3)?]));
    if *ip.first()? >> 4 != 4 || ihl < 20 || total < ihl || total > ip.len() {
        return None;
    }
    if rfc1071(&ip[..ihl]) != 0 {
        return Some(false);
    }
    let frag = u16::from_be_bytes([ip[6], ip[7]]);
    if frag & 0x3fff != 0 {
        return Some(true);
    }
    let l4 = &ip[ihl..total];
    let mut pseudo = Vec::from(&ip[12..20]);
    pseudo.extend_from_slice(&[0, ip[9]]);
    pseudo.extend_from_slice(&(l4.len() as u16).to_be_bytes());
    pseudo.extend_from_slice(l4);
    Some(match ip[9] {
        6 => l4.len() >= 20 && rfc1071(&pseudo) == 0,
        17 => l4.len() >= 8 && (l4[6..8] == [0, 0] || rfc1071(&pseudo) == 0),
        _ => true,
    })
}

#[test]
fn checksums_agree_with_rfc1071_on_the_corpus() {
    let Some(packets) = corpus() else { return };
    let reg = standard();
    let (mut ok, mut bad, mut compared) = (0, 0, 0);
    for (n, p) in packets.iter().enumerate() {
        let mut m = [0u8; 16];
        // The IPv4 header's checksum, and a range of every packet.
        for (start, len) in [(14, 20), (0, p.len()), (3, p.len().saturating_sub(7))] {
            set(&mut m, 0, start as i64);
            set(&mut m, 1, len as i64);
            let want = p
                .get(start..start + len)
                .map_or(-1, |r| i64::from(rfc1071(r)));
            assert_eq!(call(&reg, "checksum", p, &mut m, 0, 0), want, "packet {n}");
        }
        let got = call(&reg, "checksums_ok", p, &mut m, 0, 0);
        if let Some(want) = naive_verify(p) {
            compared += 1;
            assert_eq!(got, i64::from(want), "packet {n}");
            if want {
                ok += 1
            } else {
                bad += 1
            }
        }
    }
    eprintln!("{compared} whole IPv4 frames: {ok} verify, {bad} do not");
    assert!(ok > 1_000 && bad > 10, "both answers occur ({ok}, {bad})");
}

#[test]
fn checksums_ok_on_built_frames() {
    let reg = standard();
    let mut m = [0u8; 8];
    let tcp = Frame::default()
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
        .tcp(1, 2, 0x18)
        .payload(b"odd")
        .build();
    let udp = Frame::default()
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
        .udp(53, 53)
        .payload(b"query")
        .build();
    let tagged = Frame::default()
        .vlan(7)
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
        .udp(53, 53)
        .build();
    for f in [&tcp, &udp, &tagged] {
        assert_eq!(call(&reg, "checksums_ok", f, &mut m, 0, 0), 1);
        // Any one byte flipped in the IPv4 or transport header or the payload
        // breaks one of the sums (or the lengths, and with them the packet).
        let ip = if f == &tagged { 18 } else { 14 };
        for i in ip..f.len() {
            let mut g = f.clone();
            g[i] ^= 0x40;
            assert_eq!(call(&reg, "checksums_ok", &g, &mut m, 0, 0), 0, "byte {i}");
        }
        // Cut: cannot be verified.
        assert_eq!(
            call(&reg, "checksums_ok", &f[..f.len() - 1], &mut m, 0, 0),
            0
        );
    }
    // A UDP checksum of 0 is none.
    let mut g = udp.clone();
    g[14 + 20 + 6..14 + 20 + 8].copy_from_slice(&[0, 0]);
    assert_eq!(call(&reg, "checksums_ok", &g, &mut m, 0, 0), 1);
    assert_eq!(call(&reg, "checksums_ok", &[], &mut m, 0, 0), 0);
}

#[test]
fn hashes_agree_with_fnv1a_and_with_fpl_hash() {
    let Some(packets) = corpus() else { return };
    let reg = standard();
    // FPL's own HASH and flow_hash must agree where the flow sits at bytes 26..38.
    let mut f = Filter::new(
        "MEM[0] = 1000; R[0] = EXTERN(flow_hash, 0, 0); R[1] = HASH(26, 12, 1000); \
         RETURN R[0] == R[1] && R[0] >= 0;",
        &reg,
    );
    let (mut agreed, mut flows) = (0, 0);
    for (n, p) in packets.iter().enumerate() {
        let mut m = [0u8; 24];
        for (start, len, buckets) in [(0usize, 14usize, 97i64), (14, 20, 1), (6, p.len(), 65_536)] {
            set(&mut m, 0, start as i64);
            set(&mut m, 1, len as i64);
            set(&mut m, 2, buckets);
            let want = p
                .get(start..start.saturating_add(len))
                .map_or(-1, |r| i64::from(fnv(r) % buckets as u32));
            assert_eq!(call(&reg, "hash", p, &mut m, 0, 0), want, "packet {n}");
        }
        let plain_v4 = p.get(12..15) == Some(&[8, 0, 0x45][..])
            && p.get(20..22).is_some_and(|f| f[0] & 0x3f == 0 && f[1] == 0)
            && matches!(p.get(23), Some(6 | 17))
            && p.len() >= 38;
        if plain_v4 && p.len() >= 16 {
            let total = usize::from(u16::from_be_bytes([p[16], p[17]]));
            if total >= 28 && 14 + total <= p.len() {
                flows += 1;
                agreed += i64::from(f.run(p) == 1);
            }
        }
    }
    assert!(flows > 1_000, "{flows} plain IPv4 TCP/UDP frames");
    assert_eq!(agreed, flows, "flow_hash is HASH(26, 12, n) on plain IPv4");
    // Bad bucket counts and ranges.
    let mut m = [0u8; 24];
    for (start, len, buckets) in [
        (0, 4, 0),
        (0, 4, -1),
        (0, 4, 1 << 32),
        (-1, 4, 5),
        (0, 1 << 20, 5),
    ] {
        set(&mut m, 0, start);
        set(&mut m, 1, len);
        set(&mut m, 2, buckets);
        assert_eq!(call(&reg, "hash", &packets[0], &mut m, 0, 0), -1);
    }
    set(&mut m, 0, 0);
    assert_eq!(call(&reg, "flow_hash", &packets[0], &mut m, 0, 0), -1);
}

#[test]
fn flow_hash_reads_past_tags_and_options() {
    let reg = standard();
    let mut m = [0u8; 8];
    set(&mut m, 0, 1 << 20);
    let key = [10, 0, 0, 1, 10, 0, 0, 2, 0x04, 0xd2, 0x00, 0x50];
    let want = i64::from(fnv(&key) % (1 << 20));
    let plain = Frame::default()
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
        .tcp(1234, 80, 2)
        .build();
    let tagged = Frame::default()
        .vlan(3)
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
        .tcp(1234, 80, 2)
        .build();
    for f in [plain, tagged] {
        assert_eq!(call(&reg, "flow_hash", &f, &mut m, 0, 0), want);
    }
    let v6 = Frame::default()
        .ipv6(
            [0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
            [0xff; 16],
        )
        .udp(1, 2)
        .build();
    let mut k6 = vec![0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    k6.extend([0xff; 16]);
    k6.extend([0, 1, 0, 2]);
    assert_eq!(
        call(&reg, "flow_hash", &v6, &mut m, 0, 0),
        i64::from(fnv(&k6) % (1 << 20))
    );
}
