//! Dump files the real library writes, flushed when the program exits.
//!
//! The real library lives in a namespace of its own with its own libc, so a
//! dump file's `FILE` belongs to that libc's stdio, which the program's
//! `exit()` does not flush: tcpdump never closes its dump file and relies on
//! `exit()` to write out the last buffer. Every dumper made through the shim
//! is recorded, forgotten by `pcap_dump_close`, and flushed by an `atexit`
//! handler of the program's libc, which runs before that libc's own stdio
//! clean-up. (With `RTLD_DEEPBIND` the libc is shared and this is harmless.)

use crate::ffi::PcapDumper;
use std::sync::{Mutex, Once};

static OPEN: Mutex<Vec<usize>> = Mutex::new(Vec::new());
static AT_EXIT: Once = Once::new();

/// Records `d` (if not null) to be flushed at exit.
pub(crate) fn track(d: *mut PcapDumper) {
    if d.is_null() {
        return;
    }
    AT_EXIT.call_once(|| {
        // SAFETY: registers a function of this library, which is never
        // unloaded while the program runs (nothing dlcloses libpcap's soname
        // it was linked against; a plugin that does would unregister it, as
        // glibc runs a library's atexit handlers when it is unloaded).
        unsafe { libc::atexit(flush_all) };
    });
    OPEN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(d as usize);
}

/// Forgets `d`: it is being closed.
pub(crate) fn untrack(d: *mut PcapDumper) {
    let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    open.retain(|x| *x != d as usize);
}

/// Flushes every open dumper. Runs at exit; a lock held by a thread that
/// was interrupted is skipped rather than waited for.
extern "C" fn flush_all() {
    let _ = std::panic::catch_unwind(|| {
        let Ok(open) = OPEN.try_lock() else { return };
        let Some(f) = crate::real::fns() else { return };
        for d in open.iter() {
            // SAFETY: a dumper the real library made and that was not closed
            // (pcap_dump_close forgets it first).
            unsafe { (f.pcap_dump_flush)(*d as *mut PcapDumper) };
        }
    });
}
