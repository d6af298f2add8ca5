//! An FPL filter placed in the kernel for real: loaded as a socket filter and
//! attached under a capture ring on a veth pair, it counts UDP frames in MBuf
//! and passes only the sequence number the application wrote into MBuf through
//! its mapping; a second store changes what passes, with no system call and no
//! reload, and the count is read back through the mapping. Needs network
//! namespaces (root): skipped with a message without them, a failure under
//! `CI=true`.

use netsift_fpl::externs::Externs;
use netsift_fpl::{compile, Options};
use netsift_kernel::fpl::Loaded;
use netsift_kernel::sys::ProgKind;
use netsift_testkit::{require, Need};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
mod rounds;

/// `numbered_udp` frames carry their sequence number at byte 42.
const FILTER: &str = "
IF (PKT.ETH_TYPE == ETH_P_IP && PKT.IP_PROTO == PROTO_UDP) THEN
  MEM[0]++;
  IF (PKT.DW[42] == MEM[1]) THEN RETURN TRUE; FI
FI
RETURN FALSE;";

#[test]
fn a_store_to_the_mapped_mbuf_switches_what_reaches_the_ring() {
    require!(Need::Netns);
    let p = compile(FILTER, &Options::default(), &Externs::new()).unwrap();
    let k = Arc::new(Loaded::load(&p, Some(FILTER), ProgKind::SocketFilter).unwrap());
    let want = |seq: u64| k.mbuf.dwords()[1].store(seq, Ordering::Release);
    want(5);
    // Then sequence number 8: one store, the same program still attached.
    let kk = Arc::clone(&k);
    let seen = rounds::two_rounds(move |fd| kk.prog.attach(fd).expect("attached"), || want(8));
    assert_eq!(seen, vec![5, 8]);
    // Every UDP frame is counted, the ones the filter dropped too; frame 9 of
    // the second round may still be on its way when frame 8 has arrived.
    let counted = || k.mbuf.dwords()[0].load(Ordering::Acquire);
    let end = Instant::now() + Duration::from_secs(5);
    while counted() < 20 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(counted(), 20, "UDP frames counted in MBuf");
}
