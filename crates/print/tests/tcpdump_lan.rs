//! FDDI, Token Ring and IP over Fibre Channel summary lines (default, `-e`, `-v`,
//! `-q -e`) against the installed tcpdump, line by line, on frames built here: the
//! shared corpus has no capture of these link types. The frames cover LLC/SNAP around IPv4 (TCP, UDP,
//! ICMP), ARP and IPv6, STP, IPX, NetBEUI and unknown SAPs, every FDDI frame
//! control class, Token Ring source routing (routing segments, each broadcast
//! indicator and direction), and frames cut inside each header. Skipped, with a
//! message, when tcpdump is absent.

mod common;

use common::build::{arp_packet, icmp_echo_request, ipv4_between, ipv6, tcp_seg, udp};
use common::tcpdump::{have_tcpdump, tcpdump_records};
use common::write::{flag_set, flatten, write_pcap, FlagSet};
use netsift_print::Summarizer;
use netsift_wire::LinkType;

const DST: [u8; 6] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55];
const SRC: [u8; 6] = [0x02, 0x66, 0x77, 0x88, 0x99, 0xaa];

/// 802.2 LLC bodies: SNAP around several network layers, and plain SAPs.
fn llc_bodies() -> Vec<Vec<u8>> {
    let snap = |et: u16, body: &[u8]| {
        let mut v = vec![0xaa, 0xaa, 0x03, 0, 0, 0];
        v.extend_from_slice(&et.to_be_bytes());
        v.extend_from_slice(body);
        v
    };
    let a = [10, 0, 0, 1];
    let b = [192, 168, 1, 2];
    let mut v = vec![
        snap(
            0x0800,
            &ipv4_between(6, a, b, &tcp_seg(1234, 80, 1000, 0, 0x02, &[], &[])),
        ),
        snap(0x0800, &ipv4_between(17, b, a, &udp(5353, 53, &[0; 12]))),
        snap(0x0800, &ipv4_between(1, a, b, &icmp_echo_request())),
        snap(0x0806, &arp_packet(1, SRC, a, [0; 6], b)),
        snap(0x86dd, &ipv6(17, &udp(1000, 2000, b"hello"))),
        snap(0x9999, &[1, 2, 3, 4]),
    ];
    let mut stp = vec![0x42, 0x42, 0x03, 0, 0, 0, 0, 0];
    stp.extend_from_slice(&[
        0x80, 0, 0, 1, 2, 3, 4, 5, 0, 0, 0, 4, 0x80, 0, 0, 1, 2, 3, 4, 5,
    ]);
    stp.extend_from_slice(&[0x80, 1, 0, 0, 0x14, 0, 2, 0, 0x0f, 0]);
    v.push(stp);
    v.push(vec![0xe0, 0xe0, 0x03, 0xff, 0xff, 0, 0x20]);
    v.push(vec![0xf0, 0xf0, 0x03, 1, 2, 3]);
    v.push(vec![0x04, 0x05, 0x01, 0x02, 9, 9]);
    v.push(vec![0x10, 0x10, 0xaf, 0x81, 1, 0]);
    v
}

/// A frame of a link type's tests: its bytes, and which LLC body it carries
/// after a link header of how many bytes (`None` for a frame that is not LLC).
struct Frame {
    bytes: Vec<u8>,
    llc: Option<(usize, usize)>,
}

fn fddi_frames() -> Vec<Frame> {
    let mut out = Vec::new();
    for (i, body) in llc_bodies().into_iter().enumerate() {
        let mut f = vec![0x50];
        f.extend_from_slice(&DST);
        f.extend_from_slice(&SRC);
        f.extend_from_slice(&body);
        out.push(Frame {
            bytes: f,
            llc: Some((i, 13)),
        });
    }
    for fc in [
        0x51u8, 0x57, 0x40, 0x41, 0x4f, 0x80, 0xc0, 0xc2, 0xc3, 0xc5, 0xd0, 0x60, 0xe1, 0x1f,
    ] {
        let mut f = vec![fc];
        f.extend_from_slice(&[0xff; 6]);
        f.extend_from_slice(&SRC);
        f.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x06]);
        let llc = (fc & 0xf0 == 0x50).then_some((3, 13));
        out.push(Frame { bytes: f, llc });
    }
    out
}

fn ipfc_frames() -> Vec<Frame> {
    llc_bodies()
        .into_iter()
        .enumerate()
        .map(|(i, body)| {
            let mut f = vec![0x10, 0x00];
            f.extend_from_slice(&DST);
            f.extend_from_slice(&[0x10, 0x00]);
            f.extend_from_slice(&SRC);
            f.extend_from_slice(&body);
            Frame {
                bytes: f,
                llc: Some((i, 16)),
            }
        })
        .collect()
}

fn token_frames() -> Vec<Frame> {
    let mut out = Vec::new();
    let routes: [&[u8]; 4] = [
        &[],
        &[0x02, 0x30],
        &[0x08, 0xb0, 0x00, 0x11, 0x02, 0x20],
        &[0xc6, 0x70, 0x12, 0x31, 0x45, 0x6f],
    ];
    for (i, body) in llc_bodies().into_iter().enumerate() {
        for route in routes {
            let mut f = vec![0x10, 0x40];
            f.extend_from_slice(&DST);
            let mut s = SRC;
            if !route.is_empty() {
                s[0] |= 0x80;
            }
            f.extend_from_slice(&s);
            f.extend_from_slice(route);
            // The routing field's length is the RCF's, which may differ from
            // the bytes given (the last route claims more than it has).
            let rif = route.first().map_or(0, |r| (r & 0x1f) as usize);
            f.extend_from_slice(&body);
            let llc = (rif <= route.len()).then_some((i, 14 + rif));
            out.push(Frame { bytes: f, llc });
        }
    }
    for fc in [0x00u8, 0x01, 0x80, 0xc0] {
        let mut f = vec![0x10, fc];
        f.extend_from_slice(&DST);
        f.extend_from_slice(&SRC);
        f.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
        out.push(Frame {
            bytes: f,
            llc: None,
        });
    }
    out
}

/// One packet of a capture: bytes, wire length, and (LLC body, bytes of it kept)
/// when the packet holds the whole link header of an LLC frame.
type Rec = (Vec<u8>, u32, Option<(usize, usize)>);

/// Each frame whole and cut at a few lengths.
fn records(frames: &[Frame]) -> Vec<Rec> {
    let mut recs = Vec::new();
    for f in frames {
        let wire = f.bytes.len() as u32;
        let llc_at = |n: usize| f.llc.filter(|&(_, h)| n >= h).map(|(i, h)| (i, n - h));
        recs.push((f.bytes.clone(), wire, llc_at(f.bytes.len())));
        for cut in [5usize, 13, 15, 20, 24, 40] {
            if cut < f.bytes.len() {
                recs.push((f.bytes[..cut].to_vec(), wire, llc_at(cut)));
            }
        }
    }
    recs
}

/// The flag sets compared, as tcpdump's flags and netsift's options.
fn flag_sets() -> [FlagSet; 4] {
    [
        flag_set(&[]),
        flag_set(&["-e"]),
        flag_set(&["-v"]),
        flag_set(&["-e", "-q"]),
    ]
}

/// Our lines against tcpdump's for `recs` of `lt` under each flag set: for each
/// flag set, the indexes of the records that differ and the two lines.
fn compare(
    dir: &std::path::Path,
    lt: LinkType,
    recs: &[(Vec<u8>, u32)],
) -> Vec<Vec<(usize, String, String)>> {
    let path = dir.join(format!("{lt}.pcap"));
    write_pcap(&path, lt, recs);
    let mut all = Vec::new();
    for (flags, opts) in flag_sets() {
        let mut diffs = Vec::new();
        if let Some(theirs) = tcpdump_records(&path, flags) {
            assert_eq!(
                theirs.len(),
                recs.len(),
                "{lt} {flags:?}: one line a packet"
            );
            let mut s = Summarizer::with_options(opts);
            for (i, ((data, wire), t)) in recs.iter().zip(&theirs).enumerate() {
                let ours = flatten(&s.summarize(lt, data, *wire));
                if &ours != t {
                    diffs.push((i, ours, t.clone()));
                }
            }
        }
        all.push(diffs);
    }
    all
}

/// Every FDDI and Token Ring line equals tcpdump's, but where the LLC body's own
/// text differs from tcpdump's the same way in an 802.3 Ethernet frame (a
/// protocol printer above the link layer, shared with Ethernet): those are counted.
#[test]
fn fddi_and_token_ring_lines_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("netsift-print-lan-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bodies = llc_bodies();
    let (mut compared, mut shared, mut failures) = (0, 0, Vec::new());
    for (lt, frames) in [
        (LinkType::FDDI, fddi_frames()),
        (LinkType::IEEE802, token_frames()),
        (LinkType::IP_OVER_FC, ipfc_frames()),
    ] {
        let recs = records(&frames);
        // The same LLC bodies (as kept) in 802.3 frames, and where Ethernet differs.
        let llcs: Vec<(usize, usize)> = recs.iter().filter_map(|r| r.2).collect();
        let eth: Vec<(Vec<u8>, u32)> = llcs
            .iter()
            .map(|&(i, kept)| {
                let b = &bodies[i];
                let mut f = DST.to_vec();
                f.extend_from_slice(&SRC);
                f.extend_from_slice(&(b.len() as u16).to_be_bytes());
                f.extend_from_slice(&b[..kept.min(b.len())]);
                (f, 14 + b.len() as u32)
            })
            .collect();
        let eth_diffs = compare(&dir, LinkType::EN10MB, &eth);
        let plain: Vec<(Vec<u8>, u32)> = recs.iter().map(|r| (r.0.clone(), r.1)).collect();
        let diffs = compare(&dir, lt, &plain);
        for (k, (flags, _)) in flag_sets().iter().enumerate() {
            compared += recs.len();
            for (i, ours, theirs) in &diffs[k] {
                let on_ethernet = recs[*i].2.and_then(|l| llcs.iter().position(|&x| x == l));
                if on_ethernet.is_some_and(|e| eth_diffs[k].iter().any(|d| d.0 == e)) {
                    shared += 1;
                    continue;
                }
                failures.push(format!(
                    "{lt} #{i} {flags:?}\n   ours: {ours}\n   tcpd: {theirs}"
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{compared} FDDI, Token Ring and IP-over-FC lines compared: {} differ in the link layer, {shared} \
         after it as the same LLC body does on Ethernet",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Apple IP over IEEE 1394 lines: IPv4, ARP, IPv6 and unknown Ethertypes, whole and
/// cut, equal to tcpdump's under every flag set.
#[test]
fn ieee1394_lines_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("netsift-print-1394-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let a = [10, 0, 0, 1];
    let b = [192, 168, 1, 2];
    let mut recs = Vec::new();
    for (et, body) in [
        (0x0800u16, ipv4_between(17, a, b, &udp(5353, 53, &[0; 12]))),
        (0x0806, arp_packet(1, SRC, a, [0; 6], b)),
        (0x86dd, ipv6(17, &udp(1000, 2000, b"hello"))),
        (0x88b5, vec![1, 2, 3, 4]),
    ] {
        let mut f = vec![0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55];
        f.extend_from_slice(&[0x02, 0x66, 0x77, 0xff, 0xfe, 0x88, 0x99, 0xaa]);
        f.extend_from_slice(&et.to_be_bytes());
        f.extend_from_slice(&body);
        let wire = f.len() as u32;
        for cut in [5usize, 16, 18, 20, 30] {
            if cut < f.len() {
                recs.push((f[..cut].to_vec(), wire));
            }
        }
        recs.push((f, wire));
    }
    let diffs = compare(&dir, LinkType::APPLE_IP_OVER_IEEE1394, &recs);
    let _ = std::fs::remove_dir_all(&dir);
    let failures: Vec<String> = diffs
        .iter()
        .flatten()
        .map(|(i, ours, theirs)| format!("#{i}\n   ours: {ours}\n   tcpd: {theirs}"))
        .collect();
    println!(
        "{} IEEE 1394 lines compared, {} differ",
        4 * recs.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
