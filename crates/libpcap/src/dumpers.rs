//! The real library's stdio, flushed when the program exits.
//!
//! In a namespace of its own the real library has its own libc, so a dump
//! file's `FILE` (and `stdout` for `-w -`) belongs to that libc's stdio, which
//! the program's `exit()` does not flush: tcpdump never closes its dump file
//! and relies on `exit()` to write out the last buffer. An `atexit` handler of
//! the program's libc calls the real library's libc's `fflush(NULL)`, before
//! the program's own stdio clean-up.

use std::sync::Once;

static AT_EXIT: Once = Once::new();

/// Registers the flush, once.
pub(crate) fn flush_at_exit() {
    AT_EXIT.call_once(|| {
        // SAFETY: registers a function of this library, which is not unloaded
        // while the program runs (glibc runs a library's atexit handlers when
        // it is unloaded, should a plugin host dlclose it).
        unsafe { libc::atexit(flush_all) };
    });
}

/// Flushes every stream of the real library's libc.
extern "C" fn flush_all() {
    let _ = std::panic::catch_unwind(|| {
        if let Some(f) = crate::real::fns() {
            // SAFETY: fflush(NULL) flushes every output stream of that libc.
            unsafe { (f.fflush)(std::ptr::null_mut()) };
        }
    });
}
