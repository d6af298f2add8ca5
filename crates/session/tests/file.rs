//! A capture file as a session's source: the sink gets exactly the packets
//! libpcap's program accepts, in order; the count stops it where it says; a
//! malformed file is an error of its kind after what came before it is handed
//! over.

use netsift_pcapio::Record;
use netsift_session::{Callback, ErrorKind, FileFilter, FilterSpec, SinkError};
use netsift_testkit::{corpus, require, Mismatches, Need};
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// Packets as (bytes, length on the wire).
type Packets = Vec<(Vec<u8>, u32)>;

/// The packets (bytes, length on the wire) of `path` that `spec` keeps, with the
/// number read, and the result.
fn run(
    path: &Path,
    spec: &FilterSpec,
    limit: u64,
) -> (Packets, u64, Result<(), netsift_session::Error>) {
    let mut reader = netsift_pcapio::open(path).unwrap();
    let target =
        netsift_pcapc::Target::new(reader.linktype()).savefile_swapped(reader.is_big_endian());
    let f = FileFilter::new(spec, target, netsift_session::events::ignore()).unwrap();
    let mut got = Vec::new();
    let mut sink = Callback(|r: &Record<'_>| {
        got.push((r.packet.data.to_vec(), r.packet.orig_len));
        Ok::<(), SinkError>(())
    });
    let (n, result) = f.run(
        &mut reader,
        &mut sink,
        (&AtomicBool::new(false), limit),
        |_| {},
    );
    assert_eq!(n.accepted, got.len() as u64);
    (got, n.read, result)
}

#[test]
fn a_file_gives_the_sink_what_libpcap_accepts() {
    let dir = corpus(env!("CARGO_MANIFEST_DIR")).join("pcaps/tcpdump");
    require!(Need::File(&dir));
    let mut m = Mismatches::new("session file filter vs libpcap", 5);
    for file in [
        "afs.pcap",
        "tftp.pcap",
        "802.1ad_QinQ.pcap",
        "ipv6-routing-header.pcap",
    ] {
        let path = dir.join(file);
        if !path.exists() {
            continue;
        }
        for expr in [
            "udp",
            "tcp or icmp",
            "vlan and ip",
            "ip6",
            "udp port 69 or port 7000",
        ] {
            let oracle =
                netsift_oracle::Filter::compile(netsift_wire::LinkType::EN10MB, expr).unwrap();
            let mut reader = netsift_pcapio::open(&path).unwrap();
            let mut want = Vec::new();
            while let Some(r) = reader.next_record().unwrap() {
                if oracle.run(r.packet.data, r.packet.orig_len) != 0 {
                    want.push((r.packet.data.to_vec(), r.packet.orig_len));
                }
            }
            let (got, _, result) = run(&path, &FilterSpec::Static(expr.into()), u64::MAX);
            result.unwrap();
            m.check(got == want, || (file, expr, got.len(), want.len()));
        }
    }
    assert!(m.checked() >= 10, "too few captures found");
    m.assert_none();
}

#[test]
fn the_count_stops_the_file_at_the_last_packet_it_allows() {
    let path = corpus(env!("CARGO_MANIFEST_DIR")).join("pcaps/tcpdump/afs.pcap");
    require!(Need::File(&path));
    let (all, read_all, r) = run(&path, &FilterSpec::Static("udp".into()), u64::MAX);
    r.unwrap();
    let (three, read, r) = run(&path, &FilterSpec::Static("udp".into()), 3);
    r.unwrap();
    assert_eq!(three, all[..3]);
    assert!(read < read_all, "reading stops at the third packet kept");
}

#[test]
fn a_truncated_file_is_an_error_after_its_whole_records() {
    let path = corpus(env!("CARGO_MANIFEST_DIR")).join("pcaps/tcpdump/afs.pcap");
    require!(Need::File(&path));
    let bytes = std::fs::read(&path).unwrap();
    let dir = std::env::temp_dir().join(format!("netsift-session-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.pcap");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let (all, _, _) = run(&path, &FilterSpec::Static(String::new()), u64::MAX);
    let (got, _, r) = run(&cut, &FilterSpec::Static(String::new()), u64::MAX);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(r.unwrap_err().kind(), ErrorKind::File);
    assert!(!got.is_empty() && got.len() < all.len());
    assert_eq!(got, all[..got.len()], "the records before the fault, whole");
}
