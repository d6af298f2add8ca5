//! FPL filter calls through the real daemon (the seeds' Figure 2b): a graph
//! flow defines two callable filters before it and its one `fpl` element
//! calls both on its MBuf, played from a corpus capture; the MBuf the client
//! maps holds the packets of every TCP flow and the ten most active, as
//! `netsift_testkit::fig2b`'s model counts them from the file, and the flow
//! receives the packets the caller passed. Definitions the daemon cannot run
//! are refused with their name and position.

mod common;

use common::{corpus, daemon, drain, wait_stats, Connect};
use netsift_ffpf::proto::ErrorCode;
use netsift_ffpf::FlowSpec;
use netsift_testkit::fig2b;
use netsift_testkit::{require, Need};

/// The corpus capture with the most TCP flows (12, in 91 packets).
const FILE: &str = "bgp-4byte-asn.pcap";

#[test]
fn figure2b_filter_calls_write_the_mbuf_a_client_maps() {
    let file = corpus(FILE);
    require!(Need::File(&file));
    let src = format!("bgp={}", file.display());
    let d = daemon(None, &["--file", &src, "--fast", "--wait-flows", "1"]);
    let c = d.client();
    let graph = fig2b::graph("bgp");
    let mut f = c
        .create(&FlowSpec {
            source: "bgp".into(),
            graph: Some(graph.clone()),
            ..FlowSpec::default()
        })
        .unwrap_or_else(|e| panic!("{graph}: {e}"));
    f.instantiate().unwrap();
    f.activate().unwrap();
    wait_stats(&c, "playback", |s| s.sources[0].finished);

    // The truth, from the file as libpcap reads it.
    let mut cap = netsift_oracle::Capture::open(&file).unwrap();
    let mut truth = fig2b::Truth::default();
    let mut passed = Vec::new();
    while let Some(p) = cap.next() {
        let p = p.unwrap();
        if truth.count(&p.data) {
            passed.push(p.data.clone());
        }
    }
    assert!(truth.counts.len() > 10, "{FILE}: {:?}", truth.counts);

    // Element 1, the caller: its MBuf holds both callees' work.
    let m = f.mbuf(1).unwrap();
    assert_eq!(m.len(), fig2b::CALLER_MBUF);
    let table = fig2b::Table::read(&m.bytes());
    table.check(&truth);
    assert_eq!(table.top.len(), 10);
    let got: Vec<Vec<u8>> = drain(&mut f).into_iter().map(|g| g.0).collect();
    assert_eq!(got.len(), truth.counted);
    assert!(got == passed, "the packets the caller passed");
}

#[test]
fn bad_definitions_are_refused_with_their_position() {
    let file = corpus(FILE);
    require!(Need::File(&file));
    let src = format!("bgp={}", file.display());
    let d = daemon(None, &["--file", &src, "--fast"]);
    let c = d.client();
    let refused = |g: &str| {
        let e = common::refusal(&c, "bgp", g);
        assert_eq!(e.refusal(), Some(ErrorCode::Filter), "{e}");
        e.to_string()
    };
    let m = refused(
        r#"a = (fpl,"RETURN EXTERN(b, 0, 0);",8); b = (fpl,"RETURN EXTERN(a, 0, 0);",8); (device,bgp) -> (fpl,"RETURN EXTERN(a, 0, 8);",16)"#,
    );
    assert!(
        m.contains("definition `b` (fpl) at byte 39")
            && m.contains("filter calls form a cycle: a → b → a (line 1, column 15)"),
        "{m}"
    );
    let m = refused(
        r#"a = (fpl,"RETURN MEM[1];",16); (device,bgp) -> (fpl,"RETURN EXTERN(a, 8, 0);",16)"#,
    );
    assert!(
        m.contains("element 2 (fpl) at byte 47")
            && m.contains("EXTERN `a` (a filter) runs on its MBuf in 16 bytes at MBuf offset 8, outside the 16-byte MBuf (line 1, column 18)"),
        "{m}"
    );
    let m = refused(r#"a = (pcap,"tcp"); (device,bgp) -> (pcap,tcp)"#);
    assert!(
        m.contains("definition `a`: class pcap cannot be called"),
        "{m}"
    );
    let m = refused(r#"(device,bgp) -> (fpl,"RETURN EXTERN(nope, 0, 0);")"#);
    assert!(
        m.contains("no external function `nope` is registered"),
        "{m}"
    );
    let s = c.daemon_stats().unwrap();
    assert_eq!(s.flows, 0, "{s:?}");
}
