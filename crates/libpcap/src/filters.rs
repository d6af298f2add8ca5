//! The expression text behind each compiled program.
//!
//! `pcap_setfilter` receives classic BPF, but a netsift capture filters with
//! the pcap expression itself. `pcap_compile` (and `pcap_compile_nopcap`)
//! remember which text a program was compiled from, keyed by the address of
//! its instructions, which the real library allocated and keeps until
//! `pcap_freecode`; `pcap_freecode` forgets it. A program not found here was
//! built by hand (or copied), and a netsift handle runs it in the shim.

use crate::ffi::{BpfInsn, BpfProgram};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// A program's identity: its instructions' address and count.
type Key = (usize, u32);

static TEXTS: Mutex<Option<HashMap<Key, String>>> = Mutex::new(None);

fn texts() -> MutexGuard<'static, Option<HashMap<Key, String>>> {
    TEXTS.lock().unwrap_or_else(|e| e.into_inner())
}

fn key(p: &BpfProgram) -> Key {
    (p.bf_insns as usize, p.bf_len)
}

/// Remembers that `p` was compiled from `text`.
pub(crate) fn remember(p: &BpfProgram, text: String) {
    if p.bf_insns.is_null() {
        return;
    }
    texts()
        .get_or_insert_with(HashMap::new)
        .insert(key(p), text);
}

/// Forgets `p` (it is being freed).
pub(crate) fn forget(p: &BpfProgram) {
    if let Some(m) = texts().as_mut() {
        m.remove(&key(p));
    }
}

/// The text `p` was compiled from, if it was compiled through the shim.
pub(crate) fn text_of(p: &BpfProgram) -> Option<String> {
    texts().as_ref()?.get(&key(p)).cloned()
}

/// A copy of `p`'s instructions.
///
/// # Safety
///
/// `p.bf_insns` points to `p.bf_len` instructions (or is null).
pub(crate) unsafe fn copy(p: &BpfProgram) -> Vec<BpfInsn> {
    if p.bf_insns.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller's promise: bf_len instructions at bf_insns.
    unsafe { std::slice::from_raw_parts(p.bf_insns, p.bf_len as usize).to_vec() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_is_known_until_freed() {
        let mut insns = [BpfInsn {
            code: 6,
            jt: 0,
            jf: 0,
            k: 65535,
        }];
        let p = BpfProgram {
            bf_len: 1,
            bf_insns: insns.as_mut_ptr(),
        };
        assert_eq!(text_of(&p), None);
        remember(&p, "udp".into());
        assert_eq!(text_of(&p).as_deref(), Some("udp"));
        // SAFETY: one instruction at bf_insns.
        assert_eq!(unsafe { copy(&p) }, insns);
        forget(&p);
        assert_eq!(text_of(&p), None);
    }
}
