//! What the FPL test files share: the packets the seeds' examples run on,
//! Figure 6's traffic and the corpus for Table 1's filter (tests/figures.rs
//! against independent results, tests/jit_figures.rs the JIT against the
//! interpreter).

use netsift_oracle::{Capture, Filter};
use netsift_testkit::frames::Frame;
use netsift_wire::LinkType;

/// Every Ethernet packet of the corpus (`../shared/corpus/pcaps/tcpdump`, or
/// under `NETSIFT_CORPUS` as the conformance tests take it), read by libpcap;
/// then each IPv4/UDP one retargeted to match Table 1's filter; then those cut
/// to 40 bytes, so that loads past the end are compared too. `None` (after
/// `skip_unless` said why) without the corpus.
pub(crate) fn table1_corpus() -> Option<Vec<Vec<u8>>> {
    let mut packets = corpus_ethernet()?;
    let udp = Filter::compile(LinkType::EN10MB, "ip and udp").unwrap();
    let matching: Vec<_> = packets
        .iter()
        .filter(|p| udp.accepts(p, p.len() as u32))
        .filter_map(|p| retargeted(p))
        .collect();
    let cut: Vec<_> = matching
        .iter()
        .map(|p| p[..p.len().min(40)].to_vec())
        .collect();
    packets.extend(matching);
    packets.extend(cut);
    Some(packets)
}

/// Every Ethernet packet of the corpus, file by file in name order, read by
/// libpcap; `None` (after `skip_unless` said why) without the corpus.
pub(crate) fn corpus_ethernet() -> Option<Vec<Vec<u8>>> {
    let files = netsift_testkit::tcpdump_captures(env!("CARGO_MANIFEST_DIR"))?;
    let mut packets = Vec::new();
    for f in files {
        let Ok(mut cap) = Capture::open(&f) else {
            continue;
        };
        if cap.linktype() == LinkType::EN10MB {
            packets.extend(cap.read_all().0.into_iter().map(|p| p.data));
        }
    }
    Some(packets)
}

/// The IPv4/UDP packet `p` from 192.168.1.3 to UDP port 54321, or `None` when
/// it has no room for the port.
fn retargeted(p: &[u8]) -> Option<Vec<u8>> {
    let l4 = 14 + usize::from(p[14] & 15) * 4;
    let mut q = p.to_vec();
    q[26..30].copy_from_slice(&[192, 168, 1, 3]);
    q.get_mut(l4 + 2..l4 + 4)?
        .copy_from_slice(&54321u16.to_be_bytes());
    Some(q)
}

/// Figure 6's traffic: 40 TCP flows with 1 to 40 packets each, interleaved,
/// each TCP packet followed by a UDP one between the same addresses and ports.
/// Each item: the flow's key (the 12 bytes the figure hashes: addresses, then
/// ports), the TCP frame, the UDP frame.
pub(crate) fn figure6_traffic() -> Vec<([u8; 12], Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    for round in 0..40u32 {
        for flow in round..40u32 {
            let src = [10, 0, (flow / 7) as u8, flow as u8];
            let dst = [192, 168, 1, (flow * 3) as u8];
            let (sport, dport) = (1024 + flow as u16 * 13, 80 + flow as u16);
            let ip = Frame::default().ipv4(src, dst);
            let tcp = ip.clone().tcp(sport, dport, 0x10).payload(&[0; 9]).build();
            let udp = ip.udp(sport, dport).build();
            let mut key = [0u8; 12];
            key[..4].copy_from_slice(&src);
            key[4..8].copy_from_slice(&dst);
            key[8..10].copy_from_slice(&sport.to_be_bytes());
            key[10..].copy_from_slice(&dport.to_be_bytes());
            out.push((key, tcp, udp));
        }
    }
    out
}

/// Built frames for Table 1's filter: from 192.168.1.3 to UDP port 54321, and
/// the same with the wrong source, the port as the source, TCP, and a VLAN tag
/// in front; each whole, then its fragments of 1000 bytes with a 3000-byte
/// payload. Two of them match: the first frame whole and its first fragment.
pub(crate) fn table1_built() -> Vec<Vec<u8>> {
    let ip = |src: [u8; 4]| Frame::default().ipv4(src, [10, 0, 0, 1]);
    let frames = [
        ip([192, 168, 1, 3]).udp(9, 54321),
        ip([192, 168, 1, 4]).udp(9, 54321),
        ip([192, 168, 1, 3]).udp(54321, 9),
        ip([192, 168, 1, 3]).tcp(9, 54321, 2),
        Frame::default()
            .vlan(5)
            .ipv4([192, 168, 1, 3], [10, 0, 0, 1])
            .udp(9, 54321),
    ];
    let mut out = Vec::new();
    for f in &frames {
        out.push(f.build());
        out.extend(f.clone().payload(&[7; 3000]).fragments(1000));
    }
    out
}
