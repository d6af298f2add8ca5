//! No allocation per packet: a counting global allocator watches every
//! function on every corpus packet and on built control messages. The SIP and
//! RTSP parsers of `netsift-follow` return their media and transports in a
//! `Vec`, so `sip_ports`, `rtsp_ports` and `GetDynTCPDPortFromRTSP` allocate
//! for a message that announces something (docs/externs.md) and nothing for
//! other traffic; everything else never allocates. One test, so nothing else
//! allocates meanwhile.

mod common;

use common::{corpus, set};
use netsift_externs::Library;
use netsift_fpl::externs::Call;
use netsift_testkit::frames::Frame;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counter only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: as above, for `dealloc`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        // SAFETY: as above, for `realloc`.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

#[test]
fn calls_do_not_allocate() {
    let Some(mut packets) = corpus() else { return };
    let setup = b"SETUP rtsp://h/s RTSP/1.0\r\nTransport: RTP/AVP;client_port=4588-4589\r\n\r\n";
    let ftp = b"227 Entering Passive Mode (10,0,0,1,195,80).\r\n";
    let control = |p: &[u8]| {
        Frame::default()
            .ipv4([1, 1, 1, 1], [2, 2, 2, 2])
            .tcp(1, 554, 0x18)
            .payload(p)
            .build()
    };
    let (rtsp_frame, ftp_frame) = (control(setup), control(ftp));
    packets.push(ftp_frame.clone());
    let mut lib = Library::new();
    lib.aho_corasick("w", &["GET /", "HTTP/1.", "\u{0}\u{0}\u{0}\u{0}"])
        .unwrap();
    lib.memmem("m", b"Host:").unwrap();
    let functions = lib.functions();
    let mut mbuf = vec![0u8; 1024];
    set(&mut mbuf, 0, 0);
    set(&mut mbuf, 1, 1500);
    set(&mut mbuf, 2, 1024);
    let call = |f: &netsift_fpl::externs::ExternFn, p: &[u8], mbuf: &mut [u8]| {
        let before = ALLOCS.load(Relaxed);
        f.call(Call {
            packet: p,
            mbuf,
            input: 0,
            output: 512,
            input_len: f.input_len(),
            output_len: f.output_len(),
        });
        ALLOCS.load(Relaxed) - before
    };
    for f in &functions {
        let mut n = 0;
        for p in &packets {
            n += call(f, p, &mut mbuf);
        }
        assert_eq!(n, 0, "{} allocated on corpus packets", f.name());
    }
    // The parsers' Vec, once per announcing RTSP message; FTP's parser none.
    let by_name = |n: &str| functions.iter().find(|f| f.name() == n).unwrap().clone();
    assert!(call(&by_name("rtsp_ports"), &rtsp_frame, &mut mbuf) > 0);
    assert_eq!(call(&by_name("ftp_ports"), &ftp_frame, &mut mbuf), 0);
}
