//! The copy modes side by side: a copy per flow delivers exactly what one
//! copy per group delivers, stores `k` copies of a packet `k` flows accepted,
//! gives each flow a PBuf of its own, and confines a slow reader's drops to
//! its own flow.

mod common;

use common::{check, packet, reader};
use netsift_ffpf::pbuf::record_len;
use netsift_ffpf::{CopyMode, FlowId, FlowReader, Group, Incoming, Policy};
use std::os::fd::AsRawFd;

/// Which of three flows accept packet `seq`: A all, B the even ones, C one in three.
fn accepts(seq: u64, [a, b, c]: [FlowId; 3]) -> Vec<(FlowId, u32)> {
    let mut v = vec![(a, 1)];
    if seq.is_multiple_of(2) {
        v.push((b, 2));
    }
    if seq.is_multiple_of(3) {
        v.push((c, 3));
    }
    v
}

fn drain(r: &mut FlowReader) -> Vec<(u64, u32, usize)> {
    let mut out = Vec::new();
    while let Some(p) = r.getnext().unwrap() {
        out.push((check(&p), p.class, p.data.len()));
    }
    out
}

/// Offers 300 packets in batches of 32 to a fresh group; what each of the
/// three flows read, the group's store figures, and the PBuf inode each
/// flow's descriptor names.
#[allow(clippy::type_complexity)]
fn deliver(copy: CopyMode) -> (Vec<Vec<(u64, u32, usize)>>, (u64, u64, u64), Vec<u64>) {
    let mut g = Group::with_copy(Policy::SlowReader, 1 << 20, copy).unwrap();
    assert_eq!(g.copy_mode(), copy);
    let mut ids = Vec::new();
    let mut readers = Vec::new();
    let mut inodes = Vec::new();
    for _ in 0..3 {
        let (id, fds) = g.add_flow(512).unwrap();
        inodes.push(
            std::fs::metadata(format!("/proc/self/fd/{}", fds.pbuf.as_raw_fd()))
                .map_or(0, |m| std::os::unix::fs::MetadataExt::ino(&m)),
        );
        ids.push(id);
        readers.push(reader(fds));
    }
    let ids: [FlowId; 3] = ids.try_into().unwrap();
    let pkts: Vec<(Vec<u8>, Vec<(FlowId, u32)>)> = (0..300u64)
        .map(|s| (packet(s, 60 + (s as usize % 7) * 200), accepts(s, ids)))
        .collect();
    for chunk in pkts.chunks(32) {
        let batch: Vec<Incoming<'_>> = chunk
            .iter()
            .map(|(bytes, flows)| Incoming {
                bytes,
                ts_ns: u64::from_le_bytes(bytes[..8].try_into().unwrap()) * 1000,
                wirelen: bytes.len() as u32 + 4,
                flows,
            })
            .collect();
        g.write_batch(&batch);
    }
    let got: Vec<_> = readers.iter_mut().map(drain).collect();
    for (id, r) in ids.iter().zip(&readers) {
        let s = r.stats();
        assert!(s.balanced(), "{id}: {s:?}");
        assert_eq!(s.writer, g.counters(*id).unwrap().writer);
    }
    (got, g.pbuf_stats(), inodes)
}

#[test]
fn a_copy_per_flow_delivers_what_one_copy_does_with_k_copies() {
    let (once, once_stats, once_ino) = deliver(CopyMode::Once);
    let (per, per_stats, per_ino) = deliver(CopyMode::PerFlow);
    assert_eq!(once, per, "the same packets, bytes, classes and order");
    assert_eq!(
        (once[0].len(), once[1].len(), once[2].len()),
        (300, 150, 100)
    );
    let bytes = |seqs: &mut dyn Iterator<Item = u64>| -> u64 {
        seqs.map(|s| record_len(60 + (s as u32 % 7) * 200)).sum()
    };
    assert_eq!(once_stats, (300, bytes(&mut (0..300)), 0), "one copy each");
    let k_copies = 300 + 150 + 100;
    let per_bytes = bytes(&mut (0..300))
        + bytes(&mut (0..300).filter(|s| s % 2 == 0))
        + bytes(&mut (0..300).filter(|s| s % 3 == 0));
    assert_eq!(
        per_stats,
        (k_copies, per_bytes, 0),
        "a copy per accepting flow"
    );
    assert!(
        once_ino.iter().all(|&i| i == once_ino[0]),
        "one PBuf: {once_ino:?}"
    );
    let mut distinct = per_ino.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "a PBuf per flow: {per_ino:?}");
}

#[test]
fn a_full_pbuf_per_flow_drops_for_its_flow_alone() {
    // 4 KiB per flow: three 1016-byte records fill one.
    let mut g = Group::with_copy(Policy::SlowReader, 4096, CopyMode::PerFlow).unwrap();
    let (slow, fs) = g.add_flow(64).unwrap();
    let (fast, ff) = g.add_flow(64).unwrap();
    let (mut rs, mut rf) = (reader(fs), reader(ff));
    let both = [(slow, 0), (fast, 0)];
    for s in 0..10u64 {
        let bytes = packet(s, 1000);
        let sum = g.write_batch(&[Incoming {
            bytes: &bytes,
            ts_ns: s * 1000,
            wirelen: 1004,
            flows: &both,
        }]);
        assert!(sum.stored >= 1, "packet {s}: the fast flow always has room");
        assert_eq!(check(&rf.getnext().unwrap().unwrap()), s);
        // Run dry: the reader publishes R, so its PBuf space comes back.
        assert!(rf.getnext().unwrap().is_none());
    }
    let seen: Vec<u64> = drain(&mut rs).into_iter().map(|(s, _, _)| s).collect();
    assert_eq!(seen, vec![0, 1, 2, 3], "four records fit in 4096 bytes");
    let (ss, sf) = (rs.stats(), rf.stats());
    assert_eq!((ss.writer.pbuf_full, ss.delivered), (6, 4), "{ss:?}");
    assert_eq!((sf.writer.pbuf_full, sf.delivered), (0, 10), "{sf:?}");
    assert!(ss.balanced() && sf.balanced());
    assert_eq!(g.pbuf_stats().0, 14);
    assert_eq!(g.pbuf_stats().2, 6);
    // Removing a flow frees its PBuf but keeps the group's totals.
    g.remove_flow(slow).unwrap();
    assert_eq!(g.pbuf_stats().0, 14);
}

#[test]
fn a_per_flow_pbuf_size_is_checked_when_the_group_is_made() {
    let e = Group::with_copy(Policy::SlowReader, 5000, CopyMode::PerFlow).unwrap_err();
    assert!(e.to_string().contains("5000"), "{e}");
}
