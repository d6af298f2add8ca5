//! PPI (DLT_PPI) and MTP2 (DLT_MTP2, DLT_MTP2_WITH_PHDR) output against the
//! installed tcpdump, whole text with dumps, on captures this test writes (the
//! corpus has none of these link types): PPI around 802.11 (data, control,
//! with TLVs after the header), Ethernet, radiotap, a link type no printer
//! knows, PPI inside PPI, lengths out of range, headers and frames cut short;
//! MTP2 signal units with and without the pseudo-header, which tcpdump 4.99.3
//! has no printer for (`UNSUPPORTED` and a dump). Flags: `-nn` with nothing,
//! `-v`, `-e`, `-q`, `-e -q`, `-x`, `-e -x`, `-X`.
//! Skipped, with a message, when tcpdump is absent.

mod common;

use common::build::{eth, ipv4_between, udp};
use common::tcpdump::have_tcpdump;
use common::whole;
use common::write::write_pcap;
use netsift_wire::LinkType;

/// A PPI header (version, flags, length `hl`, link type `dlt`), `tlvs` padding
/// it to `hl`, then `body`.
fn ppi(dlt: u32, hl: u16, tlvs: &[u8], body: &[u8]) -> Vec<u8> {
    let mut f = vec![0, 0];
    f.extend_from_slice(&hl.to_le_bytes());
    f.extend_from_slice(&dlt.to_le_bytes());
    f.extend_from_slice(tlvs);
    f.extend_from_slice(body);
    f
}

/// An 802.11 data frame from the DS to a station, LLC/SNAP, IPv4 UDP.
fn wlan_data() -> Vec<u8> {
    let mut f = vec![0x08, 0x02, 0x2c, 0x00];
    for a in [
        [1u8, 2, 3, 4, 5, 6],
        [0x0a, 0, 0, 0, 0, 1],
        [0x0a, 0, 0, 0, 0, 2],
    ] {
        f.extend_from_slice(&a);
    }
    f.extend_from_slice(&[0x10, 0x00, 0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
    f.extend_from_slice(&ipv4_between(
        17,
        [10, 0, 0, 1],
        [10, 0, 0, 2],
        &udp(5000, 53, b"abcd"),
    ));
    f
}

/// An 802.11 acknowledgement.
fn wlan_ack() -> Vec<u8> {
    vec![0xd4, 0, 0, 0, 1, 2, 3, 4, 5, 6]
}

/// A radiotap header with no fields, then `body`.
fn radiotap(body: &[u8]) -> Vec<u8> {
    let mut f = vec![0, 0, 8, 0, 0, 0, 0, 0];
    f.extend_from_slice(body);
    f
}

fn ppi_frames() -> Vec<Vec<u8>> {
    let data = wlan_data();
    let ip = ipv4_between(17, [10, 0, 0, 3], [10, 0, 0, 4], &udp(1000, 2000, b"x"));
    let ether = eth(0x0800, &ip);
    let field = [2, 0, 4, 0, 0xde, 0xad, 0xbe, 0xef];
    vec![
        ppi(105, 8, &[], &data),
        ppi(105, 8, &[], &wlan_ack()),
        ppi(105, 16, &field, &data),
        ppi(1, 8, &[], &ether),
        ppi(127, 8, &[], &radiotap(&wlan_ack())),
        ppi(147, 8, &[], &[1, 2, 3, 4]),
        ppi(9999, 8, &[], &[1, 2]),
        ppi(105, 8, &[], &[]),
        // Lengths out of range, and one past the captured bytes.
        ppi(105, 4, &[], &data),
        ppi(105, 65533, &[], &data),
        ppi(105, 200, &[], &data),
        // PPI inside PPI, around 802.11, a link type with no printer, and
        // one whose inner header is cut.
        ppi(192, 8, &[], &ppi(105, 8, &[], &data)),
        ppi(192, 16, &field, &ppi(192, 8, &[], &ppi(1, 8, &[], &ether))),
        ppi(192, 8, &[], &ppi(147, 8, &[], &[9, 9])),
        ppi(192, 8, &[], &[0, 0, 30, 0]),
    ]
}

/// MTP2 signal units: an MSU, an LSSU, a FISU.
fn mtp2_frames() -> Vec<Vec<u8>> {
    vec![
        vec![
            0x8f, 0x85, 0x3f, 0x03, 0x81, 0x22, 0x01, 0, 0, 0, 0x11, 0x22,
        ],
        vec![0x8f, 0x85, 0x01, 0x01],
        vec![0x8f, 0x85, 0x00],
    ]
}

/// Each frame whole, and cut at a few lengths (the wire length kept).
fn records(frames: Vec<Vec<u8>>) -> Vec<(Vec<u8>, u32)> {
    let mut recs = Vec::new();
    for f in frames {
        let wire = f.len() as u32;
        for cut in [1usize, 4, 7, 9, 12, 20, 30, 44] {
            if cut < f.len() {
                recs.push((f[..cut].to_vec(), wire));
            }
        }
        recs.push((f, wire));
    }
    recs
}

/// tcpdump's flag sets compared.
const FLAG_SETS: [&[&str]; 8] = [
    &[],
    &["-v"],
    &["-e"],
    &["-q"],
    &["-e", "-q"],
    &["-x"],
    &["-e", "-x"],
    &["-X"],
];

/// The packets of `recs` of `lt` that differ from tcpdump's whole output under
/// any flag set, and how many packet outputs were compared.
fn compare(lt: LinkType, recs: Vec<(Vec<u8>, u32)>) -> (usize, Vec<String>) {
    let dir =
        std::env::temp_dir().join(format!("netsift-print-ppi-{}-{}", lt.0, std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("link.pcap");
    write_pcap(&path, lt, &recs);
    let cap = (path, lt, recs);
    let (mut compared, mut failures) = (0, Vec::new());
    for flags in FLAG_SETS {
        let (n, f) = whole::compare(&cap, flags);
        assert_eq!(n, cap.2.len(), "{flags:?}: tcpdump printed fewer packets");
        compared += n;
        failures.extend(f);
    }
    let _ = std::fs::remove_dir_all(&dir);
    (compared, failures)
}

#[test]
fn ppi_output_matches_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let recs = records(ppi_frames());
    let (compared, failures) = compare(LinkType::PPI, recs);
    println!(
        "PPI: {compared} packet outputs compared, {} differ",
        failures.len()
    );
    assert!(compared >= 8 * 60, "{compared}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn mtp2_output_matches_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let mut compared = 0;
    let mut failures = Vec::new();
    let plain = records(mtp2_frames());
    let (n, f) = compare(LinkType(140), plain);
    compared += n;
    failures.extend(f);
    // The pseudo-header: sent, annex A, link number.
    let with_phdr: Vec<Vec<u8>> = mtp2_frames()
        .into_iter()
        .map(|f| [&[0u8, 1, 0, 0, 0, 0, 7][..], &f].concat())
        .collect();
    let (n, f) = compare(LinkType(139), records(with_phdr));
    compared += n;
    failures.extend(f);
    println!(
        "MTP2: {compared} packet outputs compared, {} differ",
        failures.len()
    );
    assert!(compared > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
