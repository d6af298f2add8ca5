//! The thread of an AF_XDP source (`--copy zero`): the interface's frames
//! land in the UMEM that is its flow group's PBuf, and the daemon writes
//! only index entries for them.
//!
//! The redirecting program is linked when the source starts, with an empty
//! XSKMAP (frames still pass to the host stack). The socket needs the
//! group's UMEM, and the group is made just after the source starts, so the
//! thread binds the socket once a zero-copy group is in the source's flow
//! table, and puts it in the map. Then, in a loop:
//!
//! 1. wait (10 ms at most) for frames in the RX ring, and take a batch;
//! 2. under the flow table's lock: run each distinct filter once over the
//!    batch, read where the kernel put the frames (no copy), and hand every
//!    frame to the group in RX order with the flows that accepted it
//!    ([`crate::dispatch::Dispatch::frames`]);
//! 3. release the RX slots, and give the kernel the frames the group's
//!    preference lets it have ([`netsift_ffpf::Group::refill`]: under
//!    slow-reader preference only frames every reader has passed; the
//!    kernel drops what finds no free frame, counted in `kernel_dropped`).
//!
//! If the group goes (its last flow closed), the socket leaves the map and
//! closes; the source stops with its last flow anyway.

use crate::dispatch::{lock, Dispatch};
use crate::xsk::Redirect;
use crate::Log;
use netsift_ffpf::xsk::{Mode, Xsk};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Descriptors taken from RX at a time.
const BATCH: u32 = 256;

/// What the thread shares with the source.
pub(crate) struct Shared {
    /// Frames the kernel dropped for the socket, as last read.
    pub(crate) kernel_dropped: AtomicU64,
}

/// The socket, once bound, and the group it belongs to.
struct Bound {
    group: u64,
    xsk: Xsk,
}

/// Runs the source until `stop` (or an error, logged).
pub(crate) fn run(
    name: &str,
    (ifindex, snaplen): (u32, u32),
    redirect: &Redirect,
    dispatch: &Mutex<Dispatch>,
    shared: &Shared,
    stop: &AtomicBool,
    log: &Log,
) {
    let mut bound: Option<Bound> = None;
    let mut descs = Vec::with_capacity(BATCH as usize);
    let mut fill = Vec::new();
    // Frames dropped by sockets this source had before (a group that went
    // and came back): the figure stays cumulative.
    let mut before = 0;
    while !stop.load(Ordering::Relaxed) {
        let Some(b) = bound.as_ref() else {
            // The flow table stays locked while the socket registers the
            // UMEM: the group (and the mapping at `umem.addr`) cannot go
            // meanwhile, so the kernel pins the group's pages and no other
            // memory that might be mapped there later. Once pinned, the pages
            // outlive the group's mapping until the socket closes.
            let d = lock(dispatch);
            let found = d
                .groups
                .values()
                .find_map(|g| g.group.umem().map(|u| (g.number, u)));
            let Some((group, umem)) = found else {
                drop(d);
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            let opened = Xsk::open(ifindex, umem).and_then(|x| redirect.bind(&x).map(|()| x));
            drop(d);
            match opened {
                Ok(xsk) => {
                    log(&format!(
                        "source {name}: AF_XDP socket on queue 0 in {} mode, UMEM of \
                         flow group {group} ({} frames)",
                        match xsk.mode {
                            Mode::ZeroCopy => "zero-copy driver",
                            Mode::Copy => "copy (XDP_COPY: no driver zero copy)",
                        },
                        umem.len / u64::from(umem.frame)
                    ));
                    bound = Some(Bound { group, xsk });
                }
                Err(e) => {
                    log(&format!("source {name}: {e}; the frames pass to the host"));
                    return;
                }
            }
            continue;
        };
        b.xsk.wait(10);
        // Wake-ups batched, as a ring block's timeout batches them: with
        // less than a batch waiting, let a millisecond more arrive (a
        // wake-up per few frames costs more than the frames).
        if (1..BATCH).contains(&b.xsk.pending()) {
            std::thread::sleep(Duration::from_millis(1));
        }
        descs.clear();
        let n = b.xsk.peek(BATCH, &mut descs);
        fill.clear();
        // One time stamp per batch: copy mode gives frames none, and the
        // batch was taken now.
        let ts_ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let r = lock(dispatch).frames(b.group, &descs, (ts_ns, snaplen), &mut fill);
        match r {
            Ok(true) => {
                b.xsk.release(n);
                b.xsk.fill(&fill);
                shared
                    .kernel_dropped
                    .store(before + b.xsk.dropped(), Ordering::Relaxed);
            }
            Ok(false) => {
                // The group went: its socket goes with it.
                redirect.unbind();
                before += b.xsk.dropped();
                bound = None;
            }
            Err(e) => {
                redirect.unbind();
                log(&format!(
                    "source {name}: {e}; the source stops, the frames pass to the host"
                ));
                return;
            }
        }
    }
    redirect.unbind();
}
