//! The seeds' Figure 2a with the real Aho-Corasick: behind one shared HTTP
//! prefix, flow A scans web traffic for worm signatures, saves each infected
//! address pair in MBuf and hands the application a packet only for a pair not
//! seen before; flow B counts fragmented web packets and passes their first
//! fragments. Checked against a naive search and counts kept while building
//! the traffic.

mod common;

use common::{naive_find, slot, Filter};
use netsift_externs::Library;
use netsift_testkit::frames::Frame;
use std::collections::HashSet;

/// Signatures of CodeRed, CodeRed II and Nimda requests.
const WORMS: &str = "# the worm set of Figure 2a\n\
GET /default.ida?NNNNNNNN\n\
GET /default.ida?XXXXXXXX\n\
GET /scripts/root.exe\n\
/winnt/system32/cmd.exe\n";

/// The prefix both flows share (`tcp dst port 80`, for unfragmented packets
/// and first fragments).
const HTTP: &str = "RETURN PKT.ETH_TYPE == ETH_P_IP && PKT.IP_PROTO == PROTO_TCP \
    && PKT.IP_FRAG == 0 && PKT.TCP_DPORT == 80;";

/// Flow A: MEM[0..2] the scan's range, MEM[2..4] its match, MEM[4] the number
/// of pairs saved, MEM[5..69] the pairs as `IP_SRC << 32 | IP_DST`.
const SCAN: &str = "
MEM[0] = PKT.TCP_PAYLOAD;
MEM[1] = 1500;
IF (EXTERN(\"aho_corasick:worms\", 0, 16) == 0) THEN RETURN FALSE; FI
R[1] = (PKT.IP_SRC << 32) | PKT.IP_DST;
FOR (R[2] = 0; R[2] < MEM[4] && R[2] < 64; R[2]++)
  IF (MEM[5 + R[2]] == R[1]) THEN RETURN FALSE; FI
ROF
IF (MEM[4] < 64) THEN
  MEM[5 + MEM[4]] = R[1];
  MEM[4]++;
FI
RETURN TRUE;
";

/// Flow B: MEM[0] counts fragmented packets; their first fragments pass.
const FRAGMENTS: &str = "
IF ((PKT.IP_FLAGS & 1) == 1) THEN
  MEM[0]++;
  RETURN TRUE;
FI
RETURN FALSE;
";

#[test]
fn figure_2a_worm_scan_beside_a_fragment_counter() {
    let dir = std::env::temp_dir().join(format!("netsift-externs-fig2a-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("worms.txt");
    std::fs::write(&file, WORMS).unwrap();
    let mut lib = Library::new();
    lib.aho_corasick_file("worms", &file).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let reg = lib.registry();
    let signatures: Vec<&[u8]> = WORMS.lines().skip(1).map(str::as_bytes).collect();

    let (mut http, mut a, mut b) = (
        Filter::new(HTTP, &reg),
        Filter::new(SCAN, &reg),
        Filter::new(FRAGMENTS, &reg),
    );
    let (mut pairs, mut pair_order, mut to_a, mut fragmented, mut to_b) =
        (HashSet::new(), Vec::new(), 0, 0, 0);
    let requests: [&[u8]; 5] = [
        b"GET /index.html HTTP/1.0\r\n\r\n",
        b"GET /default.ida?NNNNNNNNNNNNNNNNNNNNNNNN%u9090%u6858 HTTP/1.0\r\n\r\n",
        b"GET /scripts/..%255c../winnt/system32/cmd.exe?/c+dir HTTP/1.0\r\n\r\n",
        b"POST /form HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc",
        b"GET /default.ida?XXXXXXXXXXXXXXXXXXXXXXXX%u9090 HTTP/1.0\r\n\r\n",
    ];
    let mut x: u32 = 12345;
    for i in 0..400u32 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        // 48 address pairs at most: the table of 64 never fills.
        let src = [10, 1, (x >> 8) as u8 % 2, (x >> 16) as u8 % 8];
        let dst = [10, 2, 0, (x >> 24) as u8 % 3];
        let body = requests[(x >> 4) as usize % requests.len()];
        let dport = if i % 7 == 0 { 8080 } else { 80 };
        let frame = Frame::default()
            .ipv4(src, dst)
            .tcp(1024 + i as u16, dport, 0x18)
            .payload(body);
        // One request in eleven is fragmented: a first fragment with the TCP
        // header and 24 bytes, then the rest.
        let frames = if i % 11 == 5 {
            frame.fragments(48)
        } else {
            vec![frame.build()]
        };
        for (k, f) in frames.iter().enumerate() {
            let web = dport == 80 && k == 0;
            assert_eq!(http.run(f) != 0, web, "the prefix on packet {i}.{k}");
            if !web {
                continue;
            }
            // What the flows should do, computed from the bytes we sent.
            let seen = &body[..body
                .len()
                .min(if frames.len() > 1 { 28 } else { body.len() })];
            let infected = signatures.iter().any(|s| naive_find(seen, s).is_some());
            let pair =
                (u64::from(u32::from_be_bytes(src)) << 32) | u64::from(u32::from_be_bytes(dst));
            let new_pair = infected && pairs.insert(pair);
            if new_pair {
                pair_order.push(pair as i64);
            }
            assert_eq!(a.run(f) != 0, new_pair, "flow A on packet {i}");
            to_a += usize::from(new_pair);
            let first_fragment = frames.len() > 1;
            fragmented += usize::from(first_fragment);
            assert_eq!(b.run(f) != 0, first_fragment, "flow B on packet {i}");
            to_b += usize::from(first_fragment);
        }
    }
    // The application reads MBuf: A's saved pairs in order of first sight, B's count.
    assert_eq!(slot(&a.mbuf, 4) as usize, pair_order.len());
    let saved: Vec<i64> = (0..pair_order.len())
        .map(|i| slot(&a.mbuf, 5 + i))
        .collect();
    assert_eq!(saved, pair_order);
    assert_eq!(slot(&b.mbuf, 0) as usize, fragmented);
    eprintln!("{to_a} infected pairs reported, {to_b} fragmented requests");
    assert!(to_a > 10 && to_a < 64 && to_b > 10);
}
