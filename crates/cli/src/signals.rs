//! SIGINT, SIGTERM and SIGHUP end a run between batches rather than in the middle
//! of a write, so the output file always ends with a whole record and the closing
//! statistics are printed. The output can end a run the same way
//! ([`request_stop`]: `-G` with `-W` has written its last file).

use anyhow::{Context, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The one flag of the process: the signals and [`request_stop`] set it.
fn flag() -> &'static Arc<AtomicBool> {
    static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    STOP.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// A flag that the three signals set; the packet loops stop when they see it.
pub(crate) fn stop_flag() -> Result<Arc<AtomicBool>> {
    let stop = flag().clone();
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(sig, stop.clone()).context("installing a signal handler")?;
    }
    Ok(stop)
}

/// Ends the run at the loop's next check, as a signal would.
pub(crate) fn request_stop() {
    flag().store(true, Ordering::Relaxed);
}
