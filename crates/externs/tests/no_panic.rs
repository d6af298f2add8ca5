//! Hostile input: any packet bytes, any MBuf content and any arguments, through
//! every function directly and through FPL programs, never panic and never
//! write outside the function's output region.

mod common;

use netsift_externs::Library;
use netsift_fpl::externs::{Call, ExternFn, Externs};
use netsift_fpl::{compile, run, Options};
use netsift_testkit::frames::Frame;
use proptest::prelude::*;

fn library() -> Library {
    let mut lib = Library::new();
    lib.aho_corasick("w", &["GET /", "\u{0}\u{0}", "RTSP/1.0", "a"])
        .unwrap();
    lib.memmem("m", b"Transport:").unwrap();
    lib.topn(4).unwrap();
    lib
}

/// Control payloads the parsers recognise, to be cut and mutated.
const SEEDS: &[&[u8]] = &[
    b"SETUP rtsp://h/s RTSP/1.0\r\nTransport: RTP/AVP;unicast;client_port=4588-4589;server_port=1-65535\r\n\r\n",
    b"INVITE sip:b@h SIP/2.0\r\nCall-ID: x\r\nContent-Type: application/sdp\r\n\r\nv=0\r\nc=IN IP4 1.2.3.4\r\nm=audio 4000/9 RTP/AVP 0\r\na=rtcp:65535\r\n",
    b"227 Entering Passive Mode (10,0,0,1,195,80).\r\nPORT 1,2,3,4,5,6\r\n",
    b"GET /default.ida?NNNNNNNN HTTP/1.0\r\n\r\n",
];

fn packet() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        (
            0..SEEDS.len(),
            any::<u16>(),
            proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6),
            any::<usize>()
        )
            .prop_map(|(s, port, flips, cut)| {
                let mut f = Frame::default()
                    .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
                    .tcp(port, 554, 0x18)
                    .payload(SEEDS[s])
                    .build();
                for (at, b) in flips {
                    let n = f.len();
                    f[at % n] ^= b;
                }
                let keep = cut % (f.len() + 1);
                f.truncate(keep.max(f.len() / 2));
                f
            }),
    ]
}

fn call_checked(f: &ExternFn, packet: &[u8], mbuf: &[u8], input: usize, output: usize) {
    let mut m = mbuf.to_vec();
    f.call(Call {
        packet,
        mbuf: &mut m,
        input,
        output,
        input_len: f.input_len(),
        output_len: f.output_len(),
    });
    for (i, (a, b)) in mbuf.iter().zip(&m).enumerate() {
        let inside = i >= output && i < output + f.output_len();
        assert!(
            inside || a == b,
            "{} wrote byte {i} outside its output",
            f.name()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn functions_survive_any_input(
        packet in packet(),
        mbuf in proptest::collection::vec(any::<u8>(), 96..192),
        slots in proptest::collection::vec(prop_oneof![any::<i64>(), -4i64..300, Just(i64::MAX), Just(i64::MIN)], 3),
        input in 0usize..8,
        output in 0usize..16,
    ) {
        for f in library().functions() {
            let mut m = mbuf.clone();
            let input = input.min(m.len() - f.input_len());
            for (k, v) in slots.iter().enumerate() {
                let at = input + 8 * k;
                if at + 8 <= input + f.input_len() {
                    m[at..at + 8].copy_from_slice(&v.to_le_bytes());
                }
            }
            let output = output.min(m.len().saturating_sub(f.output_len()));
            if input + f.input_len() <= m.len() && output + f.output_len() <= m.len() {
                call_checked(&f, &packet, &m, input, output);
            }
        }
    }

    /// Programs calling every function, with computed ranges, on any packet:
    /// the interpreter and the functions never panic.
    #[test]
    fn programs_survive_any_packet(packet in packet(), start in -3i64..100, len in -3i64..2000) {
        let reg: Externs = library().registry();
        let text = format!(
            "MEM[0] = {start}; MEM[1] = {len}; MEM[2] = 7;
             R[0] = EXTERN(\"aho_corasick:w\", 0, 16) + EXTERN(\"memmem:m\", 0, 24)
                  + EXTERN(hash, 0, 0) + EXTERN(checksum, 0, 0) + EXTERN(checksums_ok, 0, 0)
                  + EXTERN(flow_hash, 16, 0) + EXTERN(GetDynTCPDPortFromRTSP, 0, 0)
                  + EXTERN(rtsp_ports, 0, 64) + EXTERN(sip_ports, 0, 128) + EXTERN(ftp_ports, 0, 192)
                  + EXTERN(topn, 0, 256) + EXTERN(topn_key, 0, 384);
             RETURN R[0];"
        );
        let prog = compile(&text, &Options::default(), &reg).unwrap();
        let mut mbuf = vec![0u8; 4096];
        let mut regs = [0i64; 16];
        for _ in 0..3 {
            run(&prog, &packet, &mut mbuf, &mut regs);
        }
        // MBuf smaller than compiled for: the interpreter faults, nothing panics.
        run(&prog, &packet, &mut [0u8; 100], &mut regs);
    }
}
