//! `-H`: 802.11s mesh control fields, as tcpdump detects and prints them. QoS
//! data frames with each address extension mode (0 to 3), one whose reserved
//! bits are set (no mesh field, so its payload reads as LLC), and one cut
//! inside its header, printed by tcpdump and netsift with and without `-H`, `-e`,
//! `-v` and the dumps, whose start depends on the header's length.

mod common;

use common::run;
use netsift_pcapio::{file_header, record_header, TsPrecision};
use netsift_testkit::{require, Need};
use netsift_wire::LinkType;

/// A QoS data frame (no DS bits) whose mesh control field's flags are `flags`,
/// with `ae` extra addresses, then LLC/SNAP and an IPv4 UDP datagram.
fn frame(flags: u8, ae: usize) -> Vec<u8> {
    let mut f = vec![0x88, 0x00, 0x00, 0x01];
    for k in 1..=3 {
        f.extend_from_slice(&[2, 0, 0, 0, 0, k]);
    }
    f.extend_from_slice(&[0x10, 0, 0, 0]);
    f.extend_from_slice(&[flags, 5, 4, 3, 2, 1]);
    for k in 0..ae as u8 {
        f.extend_from_slice(&[0x0a + 16 * k, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f]);
    }
    f.extend_from_slice(&[0xaa, 0xaa, 3, 0, 0, 0, 8, 0]);
    f.extend_from_slice(&[
        0x45, 0, 0, 0x1c, 0, 1, 0, 0, 0x40, 0x11, 0xf9, 0x7d, 10, 0, 0, 1, 10, 0, 0, 2,
    ]);
    f.extend_from_slice(&[0x04, 0xd2, 0x16, 0x2e, 0, 8, 0, 0]);
    f
}

#[test]
fn mesh_headers_print_as_tcpdump_prints_them_with_h() {
    require!(Need::Command("tcpdump"));
    let mut file = file_header(LinkType::IEEE802_11, 65535, TsPrecision::Micro).to_vec();
    let mut frames: Vec<Vec<u8>> = (0..4).map(|ae| frame(ae as u8, ae)).collect();
    frames.push(frame(4, 0));
    let cut = frame(1, 1)[..30].to_vec();
    for f in frames.iter().chain([&cut]) {
        let wire = if f.len() == 30 { 70 } else { f.len() as u32 };
        file.extend_from_slice(&record_header(0, 0, f.len() as u32, wire));
        file.extend_from_slice(f);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mesh.pcap");
    std::fs::write(&path, &file).unwrap();
    let path = path.to_str().unwrap();
    let netsift = env!("CARGO_BIN_EXE_netsift");
    for flags in [
        &["-nn"][..],
        &["-nn", "-H"],
        &["-nn", "-H", "-e"],
        &["-nn", "-H", "-e", "-vv"],
        &["-nn", "-H", "-x"],
        &["-nn", "-H", "-X", "-e"],
        &["-nn", "-e", "-x"],
    ] {
        let args: Vec<&str> = flags.iter().copied().chain(["-r", path]).collect();
        let theirs = run("tcpdump", &args);
        let ours = run(netsift, &args);
        assert_eq!(
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&theirs.stdout),
            "netsift {flags:?} against tcpdump"
        );
    }
    // The flag matters: the mesh fields are printed, and the payload found
    // after them, only with it.
    let with = run(netsift, &["-nn", "-H", "-e", "-r", path]);
    let without = run(netsift, &["-nn", "-e", "-r", path]);
    let with = String::from_utf8_lossy(&with.stdout);
    assert!(
        with.contains("MeshData (AE 3 TTL 5 seq 16909060 A4:0a"),
        "{with}"
    );
    assert_ne!(with, String::from_utf8_lossy(&without.stdout));
}
