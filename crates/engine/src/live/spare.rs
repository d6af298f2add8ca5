//! Retired pass versions kept for the writer's next publish, so that an edit in the
//! steady state allocates nothing.
//!
//! A publish builds a pass's next version (`super::Node`) and retires the one it
//! replaces; the retired version may be freed only once no reader can hold it,
//! which `crossbeam-epoch` decides. Freeing it and allocating the next version
//! cost three heap blocks each way per edit (the node, its steps, its operand
//! pool), about as much as the edit itself. Instead, the epoch callback pushes the
//! retired node onto [`Spares`], and the writer pops it for its next publish,
//! reusing the node and the capacity of its two vectors.
//!
//! [`Spares`] is a Treiber stack with many pushers (whichever thread runs the epoch
//! callbacks: the writer, or a reader that pins) and **one popper, the writer**.
//! With one popper the stack has no ABA problem: a node at the top can leave only
//! through the popper itself, and pushers never write a node that is already on
//! the stack, so the `next` a pop reads stays valid until its compare-exchange.
//! The stack holds at most [`MAX_SPARES`] nodes; a push beyond that frees the
//! node, so memory stays bounded when readers hold an epoch over a long burst of
//! edits (allocation then resumes until they move on).

use super::Node;
use netsift_isa::MAX_PASSES;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// Nodes kept at most: one per slot of the set (about 0.7 KiB apiece with a
/// short pass's steps and operands, so under 3 MiB). The versions in flight at
/// once grow with how long readers stay pinned times the edit rate (a reader
/// that pins over a batch of thousands of packets while the writer edits
/// without pause keeps thousands); while they all fit, no publish allocates.
pub(crate) const MAX_SPARES: usize = MAX_PASSES;

/// A stack of retired [`Node`]s (see the module notes).
pub(crate) struct Spares {
    head: AtomicPtr<Node>,
    /// Nodes on the stack, approximately (a push counts before it links).
    len: AtomicUsize,
}

impl Spares {
    pub(crate) fn new() -> Spares {
        Spares {
            head: AtomicPtr::new(ptr::null_mut()),
            len: AtomicUsize::new(0),
        }
    }

    /// Keeps `node` for reuse, or frees it when the stack is full. Any thread.
    pub(crate) fn push(&self, node: Box<Node>) {
        if self.len.fetch_add(1, Ordering::Relaxed) >= MAX_SPARES {
            self.len.fetch_sub(1, Ordering::Relaxed);
            return;
        }
        let p = Box::into_raw(node);
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            // SAFETY: `p` came from `Box::into_raw` above and is not on the stack
            // yet, so this thread owns it.
            unsafe { (*p).spare_next.store(head, Ordering::Relaxed) };
            // Release: a popper that sees `p` sees its `spare_next` and contents.
            match self
                .head
                .compare_exchange_weak(head, p, Ordering::Release, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(h) => head = h,
            }
        }
    }

    /// A retired node, if one is kept.
    ///
    /// # Safety
    ///
    /// Only one thread may pop (the set's single writer): see the module notes.
    pub(crate) unsafe fn pop(&self) -> Option<Box<Node>> {
        // Acquire: pairs with the push's release.
        let mut head = self.head.load(Ordering::Acquire);
        loop {
            if head.is_null() {
                return None;
            }
            // SAFETY: only this (single) popper removes nodes, so `head` stays on
            // the stack, allocated and unchanged, until the exchange below.
            let next = unsafe { (*head).spare_next.load(Ordering::Relaxed) };
            match self
                .head
                .compare_exchange_weak(head, next, Ordering::Acquire, Ordering::Acquire)
            {
                Ok(_) => {
                    self.len.fetch_sub(1, Ordering::Relaxed);
                    // SAFETY: unlinked above, and it was a `Box` when pushed.
                    return Some(unsafe { Box::from_raw(head) });
                }
                Err(h) => head = h,
            }
        }
    }
}

impl Spares {
    /// Starts bringing the node the next [`Spares::pop`] returns into this core's
    /// cache, with intent to write. Every spare is cold (it waited out two epochs
    /// while readers read it), and the writer fills it at its next publish; asked
    /// at the end of a publish, the miss overlaps whatever comes before the next.
    pub(crate) fn prefetch(&self) {
        let head = self.head.load(Ordering::Relaxed);
        if head.is_null() {
            return;
        }
        // Miri does not model the intrinsic; a prefetch changes no result anyway.
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        // SAFETY: a prefetch never faults and reads nothing the program sees; the
        // address may even be stale (popped and freed since) without harm.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_ET0};
            _mm_prefetch::<_MM_HINT_ET0>(head.cast::<i8>());
        }
        #[cfg(not(all(target_arch = "x86_64", not(miri))))]
        let _ = head;
    }
}

impl Drop for Spares {
    fn drop(&mut self) {
        // SAFETY: `&mut self`: no other thread can push or pop any more.
        while unsafe { self.pop() }.is_some() {}
    }
}

/// A retired node in flight to [`Spares::push`], moved into an epoch callback.
pub(crate) struct Retired(pub(crate) *mut Node);

impl Retired {
    /// The node as a `Box` again.
    ///
    /// # Safety
    ///
    /// No reader may hold the node any more (the epoch callback's moment), and it
    /// came from a `Box` (every published node does: `Owned::from`).
    pub(crate) unsafe fn into_box(self) -> Box<Node> {
        // SAFETY: the caller's promise.
        unsafe { Box::from_raw(self.0) }
    }
}

// SAFETY: the node is owned by the callback from the moment it is retired (no
// writer touches it again, and readers only read it until their epoch ends);
// `Node` itself is `Send`.
unsafe impl Send for Retired {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn node(id: u64) -> Box<Node> {
        let mut n = Node::empty();
        n.id = id;
        Box::new(n)
    }

    fn take(s: &Spares) -> usize {
        let mut n = 0;
        // SAFETY: the tests' thread is the only popper.
        while unsafe { s.pop() }.is_some() {
            n += 1;
        }
        n
    }

    #[test]
    fn pops_what_was_pushed_and_frees_beyond_the_bound() {
        let s = Spares::new();
        assert_eq!(take(&s), 0);
        for i in 0..(MAX_SPARES as u64 + 10) {
            s.push(node(i));
        }
        // SAFETY: as in `take`.
        let top = unsafe { s.pop() }.expect("kept");
        assert_eq!(top.id, MAX_SPARES as u64 - 1);
        assert_eq!(take(&s), MAX_SPARES - 1);
        assert_eq!(s.len.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn many_pushers_one_popper_lose_nothing() {
        let s = Arc::new(Spares::new());
        let per = if cfg!(miri) { 20 } else { 2_000 };
        let pushers: Vec<_> = (0..3u64)
            .map(|t| {
                let s = s.clone();
                std::thread::spawn(move || {
                    for i in 0..per {
                        s.push(node(t * 1_000_000 + i));
                    }
                })
            })
            .collect();
        let mut seen = 0usize;
        while pushers.iter().any(|h| !h.is_finished()) {
            seen += take(&s);
        }
        for h in pushers {
            h.join().expect("pusher");
        }
        seen += take(&s);
        // Pushes beyond the bound are freed, never lost in between.
        assert!(seen >= MAX_SPARES.min(3 * per as usize) && seen <= 3 * per as usize);
        assert_eq!(s.len.load(Ordering::Relaxed), 0);
    }
}
