//! Directions through `netsiftd`: the daemon owns one end of a veth pair in a
//! namespace the test makes, frames go both ways over it (received: sent
//! from the other end; sent: written on the daemon's end by a packet socket,
//! which the kernel hands to other sockets as `PACKET_OUTGOING`), and
//!
//! - a flow asking for `in`, one for `out` (set after it was created, as
//!   `pcap_setdirection` does) and one with the filter `outbound` each get
//!   exactly the frames of their direction, in order;
//! - unmodified tcpdump `-Q in` through the drop-in library writes the
//!   same packets as the stock tcpdump `-Q in` beside it.
//!
//! Needs root (namespaces), tcpdump and the built `netsiftd`: skipped with a
//! message without them, a failure under `CI=true`.

mod common;

use common::frames::udp;
use common::{daemon_on_veth, netsiftd, tcpdump_through};
use netsift_ffpf::proto::{Direction, ErrorCode};
use netsift_ffpf::{Client, Flow, FlowSpec};
use netsift_testkit::frames::{Frame, MAC_A, MAC_B};
use netsift_testkit::live::Live;
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::pcap::as_sent;
use netsift_testkit::{require, Need};
use std::time::{Duration, Instant};

/// Frame `n` sent from side A's interface (the received ones are
/// [`common::frames::udp`], from side B).
fn sent(n: u32) -> Vec<u8> {
    Frame::ethernet(MAC_A, MAC_B)
        .ipv4([10, 9, 0, 1], [10, 9, 0, 2])
        .udp(6000 + n as u16, 9)
        .payload(&n.to_be_bytes())
        .build()
}

/// Sends `rounds` rounds of three received then two sent frames; the
/// frames of each direction, in order.
fn traffic(pair: &VethPair, rounds: u32) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let (mut ins, mut outs) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        let i: Vec<Vec<u8>> = (r * 3..r * 3 + 3).map(udp).collect();
        let o: Vec<Vec<u8>> = (r * 2..r * 2 + 2).map(sent).collect();
        pair.send(Side::B, &i);
        pair.send(Side::A, &o);
        ins.extend(i);
        outs.extend(o);
    }
    (ins, outs)
}

fn flow(client: &Client, dev: &str, filter: &str, direction: Direction) -> Flow {
    let mut f = client
        .create(&FlowSpec {
            source: dev.into(),
            filter: filter.into(),
            direction,
            ..FlowSpec::default()
        })
        .unwrap_or_else(|e| panic!("{filter:?} {direction:?}: {e}"));
    f.instantiate().unwrap();
    f
}

/// Every packet the flow holds after `want` arrived (or 5 s), and 300 ms
/// more for any that should not be there.
fn read(f: &mut Flow, want: usize) -> Vec<Vec<u8>> {
    let r = f.reader().unwrap();
    let mut got = Vec::new();
    let until = Instant::now() + Duration::from_secs(5);
    let mut settle = None;
    loop {
        while let Some(p) = r.getnext().unwrap() {
            got.push(p.data.to_vec());
        }
        let now = Instant::now();
        if got.len() >= want {
            let s = *settle.get_or_insert(now + Duration::from_millis(300));
            if now >= s {
                return got;
            }
        } else if now >= until {
            return got;
        }
        r.wait_for(1, Duration::from_millis(50)).unwrap();
    }
}

#[test]
fn flows_take_the_direction_they_ask_for_and_outbound_is_the_sent() {
    require!(Need::Netns, Need::File(&netsiftd()));
    let (pair, daemon) = daemon_on_veth();
    let (_, dev) = pair.end(Side::A);
    let client = Client::connect(&daemon.socket).expect("netsiftd listens");

    let mut q_in = flow(&client, dev, "", Direction::In);
    let mut q_out = flow(&client, dev, "", Direction::InOut);
    q_out.set_direction(Direction::Out).unwrap();
    let mut outbound = flow(&client, dev, "outbound", Direction::InOut);
    let mut inbound_udp = flow(&client, dev, "inbound and udp dst port 7", Direction::InOut);
    for f in [&mut q_in, &mut q_out, &mut outbound, &mut inbound_udp] {
        f.activate().unwrap();
    }
    let (ins, outs) = traffic(&pair, 10);
    assert_eq!(read(&mut q_in, ins.len()), ins, "-Q in");
    assert_eq!(read(&mut q_out, outs.len()), outs, "-Q out");
    assert_eq!(read(&mut outbound, outs.len()), outs, "outbound");
    assert_eq!(read(&mut inbound_udp, ins.len()), ins, "inbound and udp");

    // Turned round while active: from then on the other direction only.
    q_in.set_direction(Direction::Out).unwrap();
    let (_, outs) = traffic(&pair, 2);
    assert_eq!(read(&mut q_in, outs.len()), outs, "-Q in, then out");

    // Accounting stays exact: what each filter accepted was delivered.
    for f in [&q_in, &q_out, &outbound] {
        let s = f.stats().unwrap();
        assert_eq!(s.accepted, s.written, "{s:?}");
    }
}

#[test]
fn tcpdump_q_in_through_the_daemon_writes_what_stock_tcpdump_does() {
    require!(
        Need::Netns,
        Need::Command("tcpdump"),
        Need::File(&netsiftd())
    );
    let (pair, daemon) = daemon_on_veth();
    let (ns, dev) = pair.end(Side::A);
    let dir = tempfile::tempdir().unwrap();
    let files = ["shim.pcap", "stock.pcap", "shim-out.pcap"].map(|f| dir.path().join(f));
    let through = |q: &str, file| {
        tcpdump_through(&daemon.socket, dev)
            .args(["-Q", q])
            .write_to(file)
            .start()
    };
    let shim = through("in", &files[0]);
    let shim_out = through("out", &files[2]);
    let stock = Live::tcpdump()
        .in_ns(ns)
        .args(["-Q", "in"])
        .on(dev)
        .write_to(&files[1])
        .start();
    let (ins, outs) = traffic(&pair, 10);
    // The stock ring hands its block over at its 1 s timeout.
    std::thread::sleep(Duration::from_millis(2500));
    let (shim, shim_out, stock) = (shim.stop(), shim_out.stop(), stock.stop());
    for run in [&shim, &shim_out, &stock] {
        run.assert_success();
    }
    assert_eq!(stock.packets(), as_sent(&ins), "stock tcpdump -Q in");
    assert_eq!(
        shim.packets(),
        as_sent(&ins),
        "tcpdump -Q in, through the daemon"
    );
    assert_eq!(
        shim_out.packets(),
        as_sent(&outs),
        "tcpdump -Q out, through it"
    );
}

/// A capture file's packets have no direction: asking for one, at `create`
/// or after, is refused, saying which field and why; `inout` is accepted.
#[test]
fn a_file_source_refuses_a_direction() {
    require!(Need::File(&netsiftd()));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("few.pcap");
    netsift_testkit::pcap::write(&file, &[udp(1), udp(2)]);
    let src = format!("few={}", file.display());
    let daemon = netsift_testkit::daemon::Daemon::start(&netsiftd(), None, &["--file", &src]);
    let client = Client::connect(&daemon.socket).expect("netsiftd listens");
    let spec = |direction| FlowSpec {
        source: "few".into(),
        direction,
        ..FlowSpec::default()
    };
    let e = client.create(&spec(Direction::In)).unwrap_err();
    assert_eq!(e.refusal(), Some(ErrorCode::BadField), "{e}");
    assert!(e.to_string().contains("`direction`"), "{e}");
    let mut f = client.create(&spec(Direction::InOut)).unwrap();
    let e = f.set_direction(Direction::Out).unwrap_err();
    assert!(e.to_string().contains("capture file"), "{e}");
    f.set_direction(Direction::InOut).unwrap();
}
