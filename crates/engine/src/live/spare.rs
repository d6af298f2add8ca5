//! Retired pass versions kept for the writer's next publish, so that an edit in the
//! steady state allocates nothing.
//!
//! A publish builds a pass's next version (`super::Node`) and retires the one it
//! replaces; the retired version may be freed only once no reader can hold it,
//! which `crossbeam-epoch` decides. Freeing it and allocating the next version
//! cost three heap blocks each way per edit (the node, its steps, its operand
//! pool), about as much as the edit itself. Instead, the writer collects the
//! versions it retires in a [`Chain`] and hands 16 at a time to the epoch
//! reclamation (one pin and one deferred call for the lot, not one of each per
//! publish); the callback pushes the whole chain onto [`Spares`], and the writer
//! pops a node for each later publish, reusing it and the capacity of its two
//! vectors. It takes each node two publishes ahead and asks for its lines then
//! ([`Spares::ready_ahead`]): a filtering thread may still hold them.
//!
//! [`Spares`] is a Treiber stack with many pushers (whichever thread runs the epoch
//! callbacks: the writer, or a reader that pins) and **one popper, the writer**.
//! The popper takes the whole stack with one exchange and pops from that list of
//! its own until it is empty, so a publish makes no atomic read-modify-write on
//! the stack's cache line, which the readers' callbacks write (a compare-exchange
//! per pop waited for that line at every publish). Taking everything at once has
//! no ABA problem, and pushers never write a node that is on the stack or taken.
//! The stack holds at most [`MAX_SPARES`] nodes; a chain that would take it beyond
//! that is freed, so memory stays bounded when readers hold an epoch over a long burst of
//! edits (allocation then resumes until they move on).

use super::Node;
use netsift_isa::MAX_PASSES;
use std::cell::UnsafeCell;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// Nodes kept at most: four per slot of the set (about 0.7 KiB apiece with a
/// short pass's steps and operands, so under 12 MiB). The versions in flight at
/// once grow with how long readers stay pinned times the edit rate (a reader
/// that pins over a batch of thousands of packets while the writer edits
/// without pause keeps thousands); while they all fit, no publish allocates.
/// One per slot was too few: editing one connection's passes back to back with
/// a thread filtering (the dynamic benchmark's one-connection point, four
/// publishes per announce/withdraw pair), over 4,096 versions were in flight at
/// times, so publishes allocated and the chains coming back overflowed and were
/// freed inside later edits (a third of the announcements' time, and 1 in
/// 1,000 of them took over 100 µs).
pub(crate) const MAX_SPARES: usize = 4 * MAX_PASSES;

/// A stack of retired [`Node`]s (see the module notes).
pub(crate) struct Spares {
    head: AtomicPtr<Node>,
    /// Nodes on the stack or taken and not yet popped, approximately: a push
    /// counts before it links, and pops are subtracted [`POPS_PER_COUNT`] at a
    /// time or when the taken list runs out (the nodes counted too many are the
    /// popper's, so the bound on what is kept still holds).
    len: AtomicUsize,
    /// The popper's own list, on a cache line of its own (pushers never read it).
    mine: Mine,
}

/// Pops subtracted from [`Spares`]'s count at once.
const POPS_PER_COUNT: usize = 16;

#[repr(align(64))]
struct Mine(UnsafeCell<Taken>);

/// Nodes the popper takes ahead of the publishes that fill them ([`Spares::ready_ahead`]).
const AHEAD: usize = 2;

/// What the popper took from the stack.
struct Taken {
    head: *mut Node,
    /// Pops not yet subtracted from the count.
    popped: usize,
    /// Nodes taken off `head` ahead of time, oldest first, their lines on
    /// their way into the popper's cache.
    ahead: [*mut Node; AHEAD],
    ahead_len: usize,
}

// SAFETY: `head` and `len` are atomics; `mine` is read and written only by the
// single popper (`pop` and `ready_ahead`, whose callers promise to be it) and by
// `drop` (`&mut self`); the nodes it holds are owned, unshared `Box`es of `Send`
// data. So moving or sharing a `Spares` between threads races on nothing.
unsafe impl Send for Spares {}
// SAFETY: as above.
unsafe impl Sync for Spares {}

impl Spares {
    pub(crate) fn new() -> Spares {
        Spares {
            head: AtomicPtr::new(ptr::null_mut()),
            len: AtomicUsize::new(0),
            mine: Mine(UnsafeCell::new(Taken {
                head: ptr::null_mut(),
                popped: 0,
                ahead: [ptr::null_mut(); AHEAD],
                ahead_len: 0,
            })),
        }
    }

    /// A retired node, if one is kept: the oldest one taken ahead, or else
    /// the next on the list.
    ///
    /// # Safety
    ///
    /// Only one thread may pop (the set's single writer): see the module notes.
    pub(crate) unsafe fn pop(&self) -> Option<Box<Node>> {
        // SAFETY: the caller is the only popper, and only the popper touches `mine`.
        let mine = unsafe { &mut *self.mine.0.get() };
        let node = if mine.ahead_len > 0 {
            let node = mine.ahead[0];
            mine.ahead.copy_within(1.., 0);
            mine.ahead_len -= 1;
            node
        } else {
            let node = self.take(mine)?;
            // SAFETY: the popper's own node now (taken above).
            prefetch_node(unsafe { &*node });
            node
        };
        // SAFETY: off every list now, and it was a `Box` when pushed.
        Some(unsafe { Box::from_raw(node) })
    }

    /// The next node off the popper's list (taking the stack whole when the list
    /// is empty), if there is one.
    fn take(&self, mine: &mut Taken) -> Option<*mut Node> {
        if mine.head.is_null() {
            if mine.popped > 0 {
                self.len.fetch_sub(mine.popped, Ordering::Relaxed);
                mine.popped = 0;
            }
            // Relaxed: only a hint that saves the exchange on an empty stack.
            if self.head.load(Ordering::Relaxed).is_null() {
                return None;
            }
            // Acquire: pairs with the pushes' release (each push is a
            // read-modify-write, so the release sequences of earlier pushes
            // reach this exchange too): every taken node's contents and link
            // are visible.
            mine.head = self.head.swap(ptr::null_mut(), Ordering::Acquire);
            if mine.head.is_null() {
                return None;
            }
        }
        let node = mine.head;
        // SAFETY: taken from the stack by this popper alone, and pushers never
        // write a node once it is on the stack, so its link is as pushed.
        mine.head = unsafe { (*node).own.spare_next.load(Ordering::Relaxed) };
        mine.popped += 1;
        if mine.popped == POPS_PER_COUNT {
            self.len.fetch_sub(POPS_PER_COUNT, Ordering::Relaxed);
            mine.popped = 0;
        }
        Some(node)
    }
}

impl Spares {
    /// Pushes every node of `chain` (one compare-exchange for the lot), or frees
    /// them all if that would take the stack past [`MAX_SPARES`].
    ///
    /// # Safety
    /// No reader may still hold a node of `chain`: the epoch reclamation calls
    /// this once they are all past the point where the nodes were unlinked.
    pub(crate) unsafe fn push_chain(&self, chain: Chain) {
        let Chain { tail, len } = chain;
        if tail.is_null() {
            return;
        }
        // SAFETY: the tail is this caller's (above); it links to the head.
        let head = unsafe { (*tail).own.spare_next.load(Ordering::Relaxed) };
        if self.len.fetch_add(len, Ordering::Relaxed) + len > MAX_SPARES {
            self.len.fetch_sub(len, Ordering::Relaxed);
            let mut p = head;
            for _ in 0..len {
                // SAFETY: the chain's `len` nodes are this caller's (see above),
                // each a `Box` once, linked from the head through `spare_next`
                // by `Chain::push` (the tail, last, links back to the head).
                let node = unsafe { Box::from_raw(p) };
                p = node.own.spare_next.load(Ordering::Relaxed);
            }
            return;
        }
        let mut top = self.head.load(Ordering::Relaxed);
        loop {
            // SAFETY: the tail is this caller's (above) and not on the stack yet.
            unsafe { (*tail).own.spare_next.store(top, Ordering::Relaxed) };
            // Release: a popper that sees `head` sees every node's contents and link.
            match self
                .head
                .compare_exchange_weak(top, head, Ordering::Release, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(h) => top = h,
            }
        }
    }
}

impl Spares {
    /// Takes the nodes the next [`AHEAD`] publishes will fill and starts
    /// bringing their lines into this core's cache for writing, and the
    /// header of the one after them. Called at the end of a publish.
    ///
    /// Every spare's lines may still be in a filtering thread's cache (it ran
    /// the version while it was published), so each store into a node that
    /// is popped cold waits for a line to come over from the other core: at
    /// a few lines a version and 100-550 ns per trip on this VM's two vCPUs,
    /// the largest cost of an edit while a thread filters. Asked for a publish
    /// or two ahead, the lines arrive while the writer does other work. Only
    /// the popper holds these nodes, so no reader takes the lines back.
    ///
    /// # Safety
    ///
    /// Only the popper may call it (it takes from the popper's own list).
    pub(crate) unsafe fn ready_ahead(&self) {
        // SAFETY: the caller is the popper, the only thread that touches `mine`.
        let mine = unsafe { &mut *self.mine.0.get() };
        while mine.ahead_len < AHEAD {
            let Some(node) = self.take(mine) else {
                return;
            };
            // SAFETY: the popper's own node now (taken above).
            prefetch_node(unsafe { &*node });
            mine.ahead[mine.ahead_len] = node;
            mine.ahead_len += 1;
        }
        let next = if mine.head.is_null() {
            self.head.load(Ordering::Relaxed)
        } else {
            mine.head
        };
        prefetch_write(next.cast());
        prefetch_write(next.cast::<u8>().wrapping_add(64));
    }
}

/// Starts bringing the lines of a popped node that a publish writes (its
/// header, its steps and operands, the stamps, its own fields) into this
/// core's cache for writing. A filtering thread ran the node while it was
/// published, so each line may still be in its cache, and the writer would
/// otherwise wait for each line in turn as it copies and decodes into it.
fn prefetch_node(node: &Node) {
    let base = (node as *const Node).cast::<u8>();
    let steps = node.steps.as_ptr().cast::<u8>();
    let lines = [
        base,
        base.wrapping_add(64),
        steps,
        steps.wrapping_add(64),
        steps.wrapping_add(128),
        steps.wrapping_add(192),
        node.pool.as_ptr().cast::<u8>(),
        node.stamps.as_ptr().cast::<u8>(),
        (&node.own as *const super::Own).cast::<u8>(),
    ];
    for line in lines {
        prefetch_write(line);
    }
}

/// A hint to bring `line` into this core's cache with intent to write
/// (PREFETCHW where CPUID says the CPU has it, else PREFETCHT0). Rust has not
/// stabilised the `prfchw` target feature, so `_MM_HINT_ET0` compiles to a
/// plain PREFETCHT0: the line would come in shared and the first store would
/// still have to ask the other core to give it up.
#[inline]
fn prefetch_write(line: *const u8) {
    // Miri does not model these; a prefetch changes no result anyway.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if has_prefetchw() {
            // SAFETY: a prefetch never faults and reads nothing the program
            // sees, whatever the address (an empty vector's dangling pointer,
            // past the end of a short buffer, or null, included).
            unsafe {
                std::arch::asm!("prefetchw [{0}]", in(reg) line, options(nostack, preserves_flags, readonly));
            }
        } else {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: as above.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line.cast()) };
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = line;
}

/// Whether the CPU has PREFETCHW (CPUID leaf 0x8000_0001, ECX bit 8), asked once.
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn has_prefetchw() -> bool {
    use std::sync::atomic::AtomicU8;
    static HAS: AtomicU8 = AtomicU8::new(0);
    match HAS.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            // CPUID is safe on every x86-64 CPU; leaf 0x8000_0000 says whether
            // the extended leaf asked next exists.
            use std::arch::x86_64::__cpuid;
            let has =
                __cpuid(0x8000_0000).eax >= 0x8000_0001 && __cpuid(0x8000_0001).ecx & (1 << 8) != 0;
            HAS.store(1 + has as u8, Ordering::Relaxed);
            has
        }
    }
}

impl Drop for Spares {
    fn drop(&mut self) {
        // SAFETY: `&mut self`: no other thread can push or pop any more.
        while unsafe { self.pop() }.is_some() {}
    }
}

/// Pass versions the writer unlinked and has not yet handed to the epoch
/// reclamation, chained through their `spare_next` (on a line of the node's
/// that readers never read, `super::Own`, so linking a version some reader may
/// still be running is harmless and does not take the line from it). The
/// writer hands a whole chain over with one pin and one deferred call
/// ([`Spares::push_chain`]) instead of one of each per publish: a pin costs a
/// full fence, and every 128th one runs the process's expired deferred calls
/// inside whatever edit happened to pin.
///
/// The chain is a ring held by its tail (the first version retired), whose
/// `spare_next` is the head: two words, so that the deferred call (the chain
/// and the spares' `Arc`) fits in the three words `crossbeam-epoch` stores
/// inline, where four took a heap block per hand-over.
pub(crate) struct Chain {
    tail: *mut Node,
    len: usize,
}

// The deferred call of a hand-over: a chain and an `Arc`, inline in a
// `crossbeam_epoch::Deferred` (three words).
const _: () = assert!(std::mem::size_of::<(Chain, std::sync::Arc<Spares>)>() <= 24);

// SAFETY: the chain owns its nodes (nothing else frees or links them until
// `Spares::push_chain`), and `Node` is `Send`.
unsafe impl Send for Chain {}

impl Chain {
    pub(crate) const fn new() -> Chain {
        Chain {
            tail: ptr::null_mut(),
            len: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds a version the caller unlinked.
    ///
    /// # Safety
    /// `node` came from `Box::into_raw`, is unlinked from every slot, and is
    /// in no other chain or stack; readers may still be reading it.
    pub(crate) unsafe fn push(&mut self, node: *mut Node) {
        if self.tail.is_null() {
            self.tail = node;
        }
        // SAFETY: the caller owns `node`, and the chain its tail; readers never
        // touch `spare_next`. The new node becomes the head: it links to the
        // old head (itself when it is the first), and the tail links to it.
        unsafe {
            let head = (*self.tail).own.spare_next.load(Ordering::Relaxed);
            let head = if self.len == 0 { node } else { head };
            (*node).own.spare_next.store(head, Ordering::Relaxed);
            (*self.tail).own.spare_next.store(node, Ordering::Relaxed);
        }
        self.len += 1;
    }

    /// The chain so far, leaving this one empty.
    pub(crate) fn take(&mut self) -> Chain {
        std::mem::replace(self, Chain::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A chain of fresh nodes with ids `ids` (the last one on top).
    fn chain(ids: impl IntoIterator<Item = u64>) -> Chain {
        let mut c = Chain::new();
        for id in ids {
            let mut n = Node::empty();
            n.id = id;
            // SAFETY: a fresh node, in no chain or stack.
            unsafe { c.push(Box::into_raw(Box::new(n))) };
        }
        c
    }

    fn take(s: &Spares) -> Vec<u64> {
        let mut ids = Vec::new();
        // SAFETY: the tests' thread is the only popper.
        while let Some(n) = unsafe { s.pop() } {
            ids.push(n.id);
        }
        ids
    }

    #[test]
    fn pops_chains_last_pushed_first_and_frees_a_chain_beyond_the_bound() {
        let s = Spares::new();
        assert!(take(&s).is_empty());
        // SAFETY: fresh nodes that no reader ever saw.
        unsafe {
            s.push_chain(chain([1, 2, 3]));
            s.push_chain(chain([4, 5]));
            s.push_chain(Chain::new());
        }
        assert_eq!(take(&s), [5, 4, 3, 2, 1]);
        assert_eq!(s.len.load(Ordering::Relaxed), 0);
        let per = 100u64;
        let fit = MAX_SPARES as u64 / per;
        for k in 0..fit + 2 {
            // SAFETY: as above.
            unsafe { s.push_chain(chain(k * per..(k + 1) * per)) };
        }
        // Whole chains are kept up to the bound; the rest are freed whole.
        let kept = take(&s);
        assert_eq!(kept.len() as u64, fit * per);
        assert_eq!(kept[0], fit * per - 1);
        assert_eq!(s.len.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn nodes_taken_ahead_come_out_in_the_order_they_would_have() {
        let s = Spares::new();
        // SAFETY: fresh nodes that no reader ever saw; this thread is the
        // only popper.
        unsafe {
            s.push_chain(chain([1, 2, 3, 4]));
            s.ready_ahead();
            // Two taken ahead, one popped: the rest of the list still follows.
            assert_eq!(s.pop().map(|n| n.id), Some(4));
            s.push_chain(chain([5]));
            s.ready_ahead();
        }
        assert_eq!(take(&s), [3, 2, 1, 5]);
        // Dropped with nodes taken ahead: they are freed with the rest (Miri's
        // leak check runs over this test).
        // SAFETY: as above.
        unsafe {
            s.push_chain(chain([6, 7, 8]));
            s.ready_ahead();
        }
        drop(s);
    }

    #[test]
    fn many_pushers_one_popper_lose_nothing() {
        let s = Arc::new(Spares::new());
        let per = if cfg!(miri) { 20 } else { 2_000 };
        let pushers: Vec<_> = (0..3u64)
            .map(|t| {
                let s = s.clone();
                std::thread::spawn(move || {
                    let mut i = 0;
                    while i < per {
                        let n = (i % 5 + 1).min(per - i);
                        let base = t * 1_000_000 + i;
                        // SAFETY: fresh nodes that no reader ever saw.
                        unsafe { s.push_chain(chain(base..base + n)) };
                        i += n;
                    }
                })
            })
            .collect();
        let mut seen = Vec::new();
        while pushers.iter().any(|h| !h.is_finished()) {
            seen.extend(take(&s));
        }
        for h in pushers {
            h.join().expect("pusher");
        }
        seen.extend(take(&s));
        // Pushes beyond the bound are freed, never lost in between, and no
        // node comes out twice.
        let n = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), n);
        assert!(n >= MAX_SPARES.min(3 * per as usize) - 5 && n <= 3 * per as usize);
        assert_eq!(s.len.load(Ordering::Relaxed), 0);
    }
}
