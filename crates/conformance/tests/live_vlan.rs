//! A live capture's program for frames whose VLAN tag the kernel took out
//! (`pcapc::Meta::tag_stripped`) against libpcap: that program reads the frame
//! with the tag put back, and must accept exactly what libpcap's filter accepts
//! of the frame without the tag, which is what libpcap's kernel filter reads
//! (`tcpdump -i`). Random expressions (`exprgen`) and fixed ones that read past
//! the tag (`ether[12:2]`, `len`, `byte`), on the generated Ethernet frames
//! tagged (whole and cut by a snap length). `vlan` itself, which reads the
//! tag beside the frame, is compared with tcpdump live (cli/tests/live_vlan.rs).

use netsift_conformance::exprgen::ExprGen;
use netsift_conformance::*;
use netsift_engine::{Compiled, Scratch};
use netsift_pcapc::{Meta, Target};

/// `frame` with an 802.1Q tag of VLAN 1213 put after its MAC addresses, as the
/// capture ring puts back a tag the kernel took out (the wire length 4 more).
fn tagged(frame: &[u8], wire: u32) -> Option<(Vec<u8>, u32)> {
    let head = frame.get(..12)?;
    let mut t = head.to_vec();
    t.extend_from_slice(&[0x81, 0x00, 0x04, 0xbd]);
    t.extend_from_slice(&frame[12..]);
    Some((t, wire + 4))
}

/// Primitives a frame without its tag answers the same whatever the tag (those
/// about the tag, the socket's metadata, or an index into the link header the
/// packet computes are left out).
fn comparable(expr: &str) -> bool {
    ["vlan", "inbound", "outbound", "ifindex", "ether[", "link["]
        .iter()
        .all(|p| !expr.contains(p))
}

const FIXED: &[&str] = &[
    "ether[12:2] = 0x0800",
    "ether[14] & 0xf0 = 0x40 and ether[12:2] = 0x800",
    "ether[6:4] != 0 or ether[11] = 3",
    "len > 100",
    "len - 14 >= 60",
    "greater 60",
    "less 64",
    "byte 14 = 0x45",
    "ip and tcp[13] & 2 != 0",
    "host 10.0.0.1 or ip6 or arp",
    "udp port 53 and ip[8] < 64",
];

#[test]
fn a_frame_with_its_stripped_tag_put_back_is_filtered_as_libpcap_filters_it_without() {
    let frames: Vec<(Vec<u8>, u32)> = generated_capture_data_for(LinkType::EN10MB)
        .iter()
        .flat_map(|c| c.packets.iter())
        .filter(|p| !matches!(p.data.get(12..14), Some([0x81, 0x00] | [0x88, 0xa8])))
        .map(|p| (p.data.clone(), p.wire_len))
        .collect();
    assert!(frames.len() > 100, "{} frames", frames.len());
    let mut g = ExprGen::new(0x7a67_1213, LinkType::EN10MB);
    let mut exprs: Vec<String> = FIXED.iter().map(|s| s.to_string()).collect();
    while exprs.len() < 400 {
        let e = g.next_expr();
        if comparable(&e) && !exprs.contains(&e) {
            exprs.push(e);
        }
    }
    let target = Target::new(LinkType::EN10MB).meta(Meta {
        outgoing: false,
        ifindex: 1,
        tag_stripped: true,
    });
    let mut scratch = Scratch::new();
    let (mut compared, mut differ) = (0usize, Vec::new());
    for expr in &exprs {
        let (Ok(theirs), Ok(ours)) = (
            Filter::compile(LinkType::EN10MB, expr),
            netsift_pcapc::compile_for(expr, target),
        ) else {
            continue;
        };
        let ours = Compiled::new(ours);
        for (frame, wire) in &frames {
            let Some((t, twire)) = tagged(frame, *wire) else {
                continue;
            };
            let Ok(want) = theirs.try_run(frame, *wire) else {
                continue;
            };
            compared += 1;
            if ours.matches(&mut scratch, &t, twire) != (want != 0) {
                differ.push(format!("{expr:?} on {}", hexdump(frame, "  ")));
            }
        }
    }
    eprintln!(
        "{compared} verdicts compared over {} expressions",
        exprs.len()
    );
    assert!(compared > 10_000, "only {compared} verdicts compared");
    assert!(
        differ.is_empty(),
        "{} of {compared} verdicts differ, the first:\n{}",
        differ.len(),
        differ[..differ.len().min(3)].join("\n")
    );
}
