//! Which `pcap_t` pointers are the shim's own handles.
//!
//! Every exported function that takes a `pcap_t *` asks [`contains`] first,
//! so the answer must be cheap and safe anywhere, including in a signal
//! handler (`pcap_breakloop` from tcpdump's SIGINT handler): a fixed table of
//! atomic pointers, no lock, no allocation. A count of the live entries lets
//! a program that opens no `netsift:` interface skip the scan.

use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// At most this many `netsift:` handles are open at once.
pub(crate) const CAPACITY: usize = 256;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static TABLE: [AtomicPtr<()>; CAPACITY] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; CAPACITY];

/// Records `p` as one of ours; `false` if the table is full.
pub(crate) fn insert(p: *mut ()) -> bool {
    for slot in &TABLE {
        if slot
            .compare_exchange(std::ptr::null_mut(), p, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            LIVE.fetch_add(1, Ordering::AcqRel);
            return true;
        }
    }
    false
}

/// Forgets `p`.
pub(crate) fn remove(p: *mut ()) {
    for slot in &TABLE {
        if slot
            .compare_exchange(p, std::ptr::null_mut(), Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            LIVE.fetch_sub(1, Ordering::AcqRel);
            return;
        }
    }
}

/// Whether `p` is one of ours.
pub(crate) fn contains(p: *mut ()) -> bool {
    if p.is_null() || LIVE.load(Ordering::Acquire) == 0 {
        return false;
    }
    TABLE.iter().any(|s| s.load(Ordering::Acquire) == p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserted_pointers_are_known_until_removed() {
        let (a, b) = (8usize as *mut (), 16usize as *mut ());
        assert!(!contains(a));
        assert!(insert(a));
        assert!(contains(a) && !contains(b));
        remove(a);
        assert!(!contains(a));
        assert!(!contains(std::ptr::null_mut()));
    }
}
