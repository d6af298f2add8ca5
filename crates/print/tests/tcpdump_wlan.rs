//! 802.11 with and without a radiotap header, against the installed tcpdump
//! on every corpus capture of those link types, packet by packet: the line
//! with `-nn`, `-e`, `-v`, `-vv` and `-e -v`, and the dumps of `-x` and `-X`
//! (which start after the 802.11 header, and its LLC header for data
//! frames). Skipped, with a message, when tcpdump or the corpus is absent.
//!
//! Left out: `ieee802.11_htc.pcap`, whose one frame is IPX (netsift prints
//! no IPX payload).

mod common;

use common::corpus_captures_of;
use common::tcpdump::have_tcpdump;
use common::whole::compare;
use netsift_wire::LinkType;

const LEFT_OUT: [&str; 1] = ["ieee802.11_htc.pcap"];

#[test]
fn wlan_lines_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let caps: Vec<_> = corpus_captures_of(&[LinkType::IEEE802_11, LinkType::IEEE802_11_RADIO])
        .into_iter()
        .filter(|(p, _, _)| !LEFT_OUT.iter().any(|l| p.ends_with(l)))
        .collect();
    if caps.is_empty() {
        println!("no 802.11 corpus capture: skipped");
        return;
    }
    let flag_sets: [&[&str]; 7] = [
        &[],
        &["-e"],
        &["-v"],
        &["-vv"],
        &["-e", "-v"],
        &["-x"],
        &["-X"],
    ];
    let (mut compared, mut failures) = (0, Vec::new());
    for flags in flag_sets {
        for cap in &caps {
            let (n, f) = compare(cap, flags);
            compared += n;
            failures.extend(f);
        }
    }
    println!(
        "{} captures, {compared} packet outputs compared over 7 flag sets, {} differ",
        caps.len(),
        failures.len()
    );
    assert!(compared > 1000, "too few packets compared: {compared}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
