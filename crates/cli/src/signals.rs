//! SIGINT, SIGTERM and SIGHUP end a run between batches rather than in the middle
//! of a write, so the output file always ends with a whole record and the closing
//! statistics are printed.

use anyhow::{Context, Result};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A flag that the three signals set; the packet loops stop when they see it.
pub fn stop_flag() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(sig, stop.clone()).context("installing a signal handler")?;
    }
    Ok(stop)
}
