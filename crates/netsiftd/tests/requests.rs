//! Malformed, oversized and unknown requests get an error reply that names
//! what was wrong, and change nothing; a client that sends garbage and goes
//! does not disturb another one reading.

mod common;

use common::{active_flow, afs, afs_daemon, Connect};
use netsift_ffpf::proto::{self, ErrorCode, ReplyBody};
use netsift_ffpf::{Client, ErrorKind, FlowSpec};
use netsift_testkit::{require, Need};
use std::time::Duration;

/// The refusal `bytes` get, as (code, message).
fn refusal(c: &Client, bytes: &[u8]) -> (ErrorCode, String) {
    match c.send_raw(bytes).unwrap().body {
        ReplyBody::Error { code, what } => (code, what),
        other => panic!(
            "{:?}: not refused but {other:?}",
            String::from_utf8_lossy(bytes)
        ),
    }
}

fn spec(source: &str, filter: &str) -> FlowSpec {
    FlowSpec {
        source: source.into(),
        filter: filter.into(),
        ..FlowSpec::default()
    }
}

#[test]
fn bad_requests_are_refused_and_change_nothing() {
    require!(Need::File(&afs()));
    // At the file's own timing, in a loop: packets keep coming to the reader.
    let d = afs_daemon(&["--play", "loop"]);
    let reader = d.client();
    let mut good = active_flow(&reader, "afs", "");
    // The baseline once the file plays (and so is open).
    let first = good.reader().unwrap().wait_for(1, Duration::from_secs(10));
    assert!(first.unwrap() >= 1);
    let before = reader.daemon_stats().unwrap();
    let fds = d.fds();

    let c = d.client();
    let cases: Vec<(Vec<u8>, ErrorCode, &str)> = vec![
        (
            b"\x00\x01garbage".to_vec(),
            ErrorCode::Malformed,
            "not JSON",
        ),
        (
            b"[1,2,3]".to_vec(),
            ErrorCode::Malformed,
            "not a JSON object",
        ),
        (
            vec![b' '; proto::MAX_MESSAGE + 100],
            ErrorCode::TooLarge,
            "at most",
        ),
        (
            br#"{"id":1,"op":"frobnicate"}"#.to_vec(),
            ErrorCode::UnknownVerb,
            "frobnicate",
        ),
        (br#"{"op":"sources"}"#.to_vec(), ErrorCode::BadField, "`id`"),
        (
            br#"{"id":2,"op":"activate","flow":"one"}"#.to_vec(),
            ErrorCode::BadField,
            "invalid type",
        ),
        (
            br#"{"id":3,"op":"activate","flow":1,"x":1}"#.to_vec(),
            ErrorCode::BadField,
            "unknown field `x`",
        ),
        (
            br#"{"id":4,"op":"create","source":"afs"}"#.to_vec(),
            ErrorCode::BadField,
            "missing field `filter`",
        ),
        (
            br#"{"id":5,"op":"create","source":"afs","filter":"","snaplen":0}"#.to_vec(),
            ErrorCode::BadField,
            "snaplen",
        ),
        (
            br#"{"id":6,"op":"create","source":"eth9","filter":""}"#.to_vec(),
            ErrorCode::NoSuchSource,
            "eth9",
        ),
        (
            br#"{"id":7,"op":"create","source":"afs","filter":"tcp port"}"#.to_vec(),
            ErrorCode::Filter,
            "tcp port",
        ),
        (
            format!(r#"{{"id":8,"op":"close","flow":{}}}"#, good.number()).into_bytes(),
            ErrorCode::NoSuchFlow,
            "no flow",
        ),
        (
            br#"{"id":9,"op":"hello","version":99}"#.to_vec(),
            ErrorCode::Version,
            "99",
        ),
    ];
    for (bytes, code, says) in &cases {
        let (got, what) = refusal(&c, bytes);
        assert_eq!(got, *code, "{what}");
        assert!(what.contains(says), "{what:?} does not say {says:?}");
    }
    // A flow not instantiated cannot be activated; the refusal leaves it created.
    let mut f = c.create(&spec("afs", "udp")).unwrap();
    let e = f.activate().unwrap_err();
    assert_eq!(
        (e.kind(), e.refusal()),
        (ErrorKind::Refused, Some(ErrorCode::BadState))
    );
    // A filter that does not compile leaves the old one.
    f.instantiate().unwrap();
    let e = f.set_filter("udp and and").unwrap_err();
    assert_eq!(e.refusal(), Some(ErrorCode::Filter), "{e}");
    assert_eq!(f.stats().unwrap().filter, "udp");
    f.close().unwrap();
    // The connection still works after all that.
    assert_eq!(c.sources().unwrap().len(), 1);
    drop(c);

    // Garbage from a connection that never said hello, then gone.
    let raw = netsift_ffpf::seqpacket::connect(&d.socket).unwrap();
    use std::os::fd::AsFd;
    netsift_ffpf::fdpass::send(raw.as_fd(), b"\xff\xfe{{{", &[]).unwrap();
    let mut buf = vec![0u8; proto::MAX_MESSAGE + 1];
    let got = netsift_ffpf::fdpass::recv(raw.as_fd(), &mut buf).unwrap();
    let reply = proto::decode_reply(&buf[..got.len]).unwrap();
    assert!(matches!(
        reply.body,
        ReplyBody::Error {
            code: ErrorCode::Malformed,
            ..
        }
    ));
    netsift_ffpf::fdpass::send(raw.as_fd(), br#"{"id":1,"op":"sources"}"#, &[]).unwrap();
    let got = netsift_ffpf::fdpass::recv(raw.as_fd(), &mut buf).unwrap();
    let reply = proto::decode_reply(&buf[..got.len]).unwrap();
    assert!(
        matches!(
            reply.body,
            ReplyBody::Error {
                code: ErrorCode::Version,
                ..
            }
        ),
        "{reply:?}"
    );
    drop(raw);

    // Nothing changed: the same flows and connections, the same descriptors.
    common::wait_stats(&reader, "the others gone", |s| {
        s.connections == before.connections
    });
    let after = reader.daemon_stats().unwrap();
    assert_eq!(
        (after.flows, after.sources[0].flows),
        (before.flows, before.sources[0].flows)
    );
    assert_eq!(d.fds(), fds);
    // And the reader still reads.
    let r = good.reader().unwrap();
    while r.getnext().unwrap().is_some() {}
    let n = r.wait_for(1, Duration::from_secs(10)).unwrap();
    assert!(n >= 1, "no packet after the garbage");
    assert!(r.stats().balanced() || r.available() > 0);
}
