//! `--capture`: a flow on the daemon, written to Wireshark's FIFO as pcap.
//!
//! The flow's filter is the capture filter Wireshark was given, compiled by
//! the daemon for its source (so the kernel program under the source holds it
//! with every other client's). Packets are written as they arrive, a batch at
//! a time, and the FIFO is flushed after each so that Wireshark shows them
//! live. The capture ends when Wireshark stops it (SIGTERM, or the FIFO's
//! reader goes: EPIPE), or when the daemon goes.

use netsift_ffpf::{Client, FlowSpec};
use netsift_pcapio::{PcapWriter, TsPrecision};
use netsift_wire::LinkType;
use std::io::{self, BufWriter};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long one wait for packets lasts before the stop flag is looked at.
const POLL: Duration = Duration::from_millis(100);

/// What a capture did, for the closing line on stderr.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Done {
    /// Packets written to the FIFO.
    pub(crate) written: u64,
}

/// Captures `source` through the daemon at `socket` into `fifo` until `stop`.
pub(crate) fn capture(
    socket: &Path,
    source: &str,
    filter: &str,
    snaplen: Option<u32>,
    fifo: &Path,
    stop: &Arc<AtomicBool>,
) -> Result<Done, String> {
    let client =
        Client::connect(socket).map_err(|e| format!("netsiftd at {}: {e}", socket.display()))?;
    let spec = FlowSpec {
        source: source.to_string(),
        filter: filter.to_string(),
        snaplen,
        ..FlowSpec::default()
    };
    let mut flow = client.create(&spec).map_err(|e| format!("{source}: {e}"))?;
    flow.instantiate().map_err(|e| format!("{source}: {e}"))?;
    // The FIFO is opened before the flow is activated: Wireshark waits for
    // the header, and no packet should wait in the buffers meanwhile.
    let out = std::fs::OpenOptions::new()
        .write(true)
        .open(fifo)
        .map_err(|e| format!("{}: {e}", fifo.display()))?;
    let (lt, snap) = (LinkType(flow.linktype()), flow.snaplen());
    let mut w = PcapWriter::new(BufWriter::new(out), lt, snap, TsPrecision::Nano)
        .map_err(|e| format!("{}: {e}", fifo.display()))?;
    w.flush().map_err(|e| format!("{}: {e}", fifo.display()))?;
    flow.activate().map_err(|e| format!("{source}: {e}"))?;
    let mut done = Done::default();
    let reader = flow.reader().map_err(|e| e.to_string())?;
    while !stop.load(Ordering::Relaxed) {
        let waiting = reader.wait_for(1, POLL).map_err(|e| e.to_string())?;
        if waiting == 0 {
            continue;
        }
        loop {
            let p = match reader.getnext() {
                Ok(Some(p)) => p,
                Ok(None) => break,
                // A record the daemon described badly is skipped and counted
                // by the reader; the capture goes on.
                Err(_) => continue,
            };
            let data = &p.data[..p.data.len().min(snap as usize)];
            let (sec, ns) = (p.ts_ns / 1_000_000_000, (p.ts_ns % 1_000_000_000) as u32);
            match w.write_packet(sec as u32, ns, data, p.wirelen) {
                Ok(()) => done.written += 1,
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(done),
                Err(e) => return Err(format!("{}: {e}", fifo.display())),
            }
        }
        match w.flush() {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(done),
            Err(e) => return Err(format!("{}: {e}", fifo.display())),
        }
    }
    let _ = w.flush();
    Ok(done)
}
