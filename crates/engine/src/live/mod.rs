//! Live pass sets: Swift's dynamic filtering. One [`Writer`] edits the pass set while
//! any number of [`Reader`]s filter packets with it, and no reader ever waits.
//!
//! # How an update is published
//!
//! The pass set is a table of slots, one per pass. Each slot holds an atomic pointer
//! to an immutable `Node`: the pass's kind, parent, clause and instructions. An
//! update never writes into a node a reader may be using. It builds the pass's next
//! version (copying at most [`MAX_INSNS`] instructions, so O(change)), then replaces the
//! slot's pointer in one store. A reader therefore sees each pass either entirely before or
//! entirely after an edit: no torn instruction, no half-built pass. Slots the update
//! does not touch are not written at all, so their passes keep matching throughout.
//! Old versions are freed through epoch-based reclamation (`crossbeam-epoch`) once no
//! reader can still hold them; readers pin an epoch per packet or per batch.
//!
//! # Which passes one packet sees
//!
//! Every publish of a new pass and every deletion takes the next value of a
//! generation counter: the pass is *born* at one generation and *dies* at a later
//! one. A packet reads the counter once, before its scan, and sees exactly the passes
//! alive at that generation (born at or before it, not dead at it), each in its
//! newest version. So the set a packet is judged by is one the writer really
//! had, even though the scan visits one slot at a time: a replace (add the new
//! clause, then delete the old) never rejects a packet both accept, wherever
//! the new clause lands. A deleted pass keeps its slot until every packet that
//! may still see it is done (the slot is handed back through the same epoch
//! reclamation), so a reused slot never shows an older packet a newer pass.
//!
//! A new pass (`new_pass`, `dup_pass`) starts as a *draft* that only the writer
//! sees; `publish` makes it visible in one store. Edits of a published pass are
//! published one by one, each atomically.
//!
//! # What stays true while passes change
//!
//! * Hierarchical execution: a child's copied instruction reuses its parent's result
//!   only if both still hold the same write (every instruction write gets a fresh
//!   64-bit stamp) and the parent ran this packet as the version visible now.
//!   Otherwise the child evaluates its own image. Editing or deleting a parent can
//!   thus never change what a child means.
//! * Faults: each pass belongs to a clause (the passes of one compiled expression, or
//!   one pass made by `new_pass`/`dup_pass`). A load past the captured bytes rejects
//!   that clause, as the BPF program for it would, and the other clauses still run.
//! * SET tables are edited in place (one atomic store per insert or removal) and
//!   replaced by a rebuilt copy when they fill up (`live/table.rs`).

mod reader;
mod spare;
mod table;
mod writer;

pub use reader::{Reader, Session};
pub use writer::{ClauseId, LiveError, LiveErrorKind, PassId, Writer, WriterStats};

use crate::eval::{PassRef, Program};
use crate::op::{Pool, Step};
use aligned_vec::{AVec, ConstAlign};
use crossbeam_epoch::{self as epoch, Atomic, Guard};
use netsift_isa::{Anchor, PassKind, MAX_ANCHORS, MAX_INSNS, MAX_PASSES};
use spare::Spares;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use table::Table;

/// Hash tables a live pass set can hold (SET instructions name them 0..15).
pub const MAX_TABLES: usize = 16;

/// The key a SET instruction looks up for fields `a` and `b` (after masking).
pub fn set_key(a: u32, b: u32) -> u64 {
    (a as u64) << 32 | b as u64
}

/// A new, empty live pass set (it rejects every packet) and its two ends.
pub fn new() -> (Writer, Reader) {
    let shared = Arc::new(Shared::new());
    (Writer::new(shared.clone()), Reader::new(shared))
}

/// One published version of a pass. Immutable once published. `repr(C)` keeps
/// what readers read (`View::pass`: the header, the two vectors, the stamps)
/// apart from [`Own`], which only the writer touches.
#[repr(C)]
pub(crate) struct Node {
    id: u64,
    /// The generation the pass was first published at (edits keep it).
    born: u64,
    /// The generation it was deleted at; `u64::MAX` while it lives.
    died: AtomicU64,
    kind: PassKind,
    parent: Option<u16>,
    clause: u32,
    /// The instructions decoded when the version is published, and their operands.
    steps: LineVec<Step>,
    pool: LineVec<u32>,
    stamps: [u64; MAX_INSNS],
    own: Own,
}

/// A node's fields that no reader reads, on cache lines of their own. Retiring
/// a version links it into a chain (`spare_next`) the moment it leaves its
/// slot, while a filtering thread still holds its lines from the packets it ran
/// just before: on a line readers read, that store waited for the reader's copy
/// to be taken away, once for the version and once for the chain's tail, at
/// every publish.
#[repr(C, align(64))]
pub(crate) struct Own {
    /// The next node while this one waits in [`Spares`] for reuse (`spare.rs`).
    spare_next: AtomicPtr<Node>,
    /// `pool_at[k]`: the pool's length before step `k`'s operands (and at
    /// `steps.len()`, its whole length), so the next version can copy a prefix.
    pool_at: [u32; MAX_INSNS + 1],
}

impl Node {
    /// A node with nothing in it, for the writer to fill.
    fn empty() -> Node {
        Node {
            id: 0,
            born: 0,
            died: AtomicU64::new(u64::MAX),
            kind: PassKind::Root,
            parent: None,
            clause: 0,
            steps: LineVec::new(LINE),
            pool: LineVec::new(LINE),
            stamps: [0; MAX_INSNS],
            own: Own {
                spare_next: AtomicPtr::new(std::ptr::null_mut()),
                pool_at: [0; MAX_INSNS + 1],
            },
        }
    }
}

/// The unit a version's buffers are laid out in: a pair of cache lines, as x86
/// and ARM cores fetch them together (the adjacent-line prefetcher).
const LINE: usize = 128;

/// A vector on whole [`LINE`]s of its own. A version's steps and operands
/// are small; as plain heap blocks, a spare being filled by the writer and a
/// live version that a filtering thread runs for every packet shared lines,
/// and each store into the spare waited for the reader's copy to be taken
/// away (a follower's announcement at 1 connection, where the reader runs the
/// few live versions at every packet: p50 about 530 ns against 420 on lines of
/// their own; `docs/BENCHMARKS.md` §6).
pub(crate) type LineVec<T> = AVec<T, ConstAlign<LINE>>;

/// Makes room in `v` for `n` elements in all, rounded up to whole [`LINE`]s so
/// that no other heap block starts on its last line.
fn reserve_lines<T>(v: &mut LineVec<T>, n: usize) {
    if v.capacity() < n {
        let size = std::mem::size_of::<T>().max(1);
        let want = (n * size).div_ceil(LINE) * LINE / size;
        v.reserve_exact(want - v.len());
    }
}

/// Appends `from` to `v` (`aligned-vec` 0.5 has no `extend_from_slice`; 0.6
/// has, but brings a second `syn` and a proc macro into every build).
fn extend_lines<T: Copy>(v: &mut LineVec<T>, from: &[T]) {
    v.reserve(from.len());
    for &x in from {
        v.push(x);
    }
}

impl Pool for LineVec<u32> {
    fn len(&self) -> usize {
        AVec::len(self)
    }
    fn get(&self, i: usize) -> Option<&u32> {
        self.as_slice().get(i)
    }
    fn push(&mut self, v: u32) {
        AVec::push(self, v)
    }
    fn extend<I: IntoIterator<Item = u32>>(&mut self, values: I) {
        for v in values {
            AVec::push(self, v);
        }
    }
}

/// Slots handed back by epoch callbacks: one bit per slot, and one bit per word of
/// those, so that the writer finds them without reading every word (an edit that
/// needs a slot would otherwise make 64 atomic exchanges).
pub(crate) struct Reclaimed {
    words: AtomicU64,
    slots: [AtomicU64; MAX_PASSES / 64],
}

// The summary word has one bit per word of slots.
const _: () = assert!(MAX_PASSES / 64 <= 64);

impl Reclaimed {
    fn new() -> Reclaimed {
        Reclaimed {
            words: AtomicU64::new(0),
            slots: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }

    /// Marks `slot` free. Any thread (an epoch callback).
    pub(crate) fn mark(&self, slot: usize) {
        // Release, slot bit first: a writer that sees the summary bit and then
        // reads the word sees the slot's bit. A writer that took the word before
        // the slot bit landed sees the summary bit again next time.
        self.slots[slot / 64].fetch_or(1 << (slot % 64), Ordering::Release);
        self.words.fetch_or(1 << (slot / 64), Ordering::Release);
    }

    /// Takes the summary: one bit per word that may have marked slots. The writer
    /// only; it then takes each such word with [`Reclaimed::take_word`].
    pub(crate) fn take_words(&self) -> u64 {
        if self.words.load(Ordering::Relaxed) == 0 {
            return 0;
        }
        self.words.swap(0, Ordering::Acquire)
    }

    /// Takes word `w` of slot bits.
    pub(crate) fn take_word(&self, w: usize) -> u64 {
        self.slots[w].swap(0, Ordering::Acquire)
    }
}

/// What the writer and the readers share.
pub(crate) struct Shared {
    slots: Box<[Atomic<Node>]>,
    /// Published passes are in slots below this; readers scan only that far.
    high: AtomicUsize,
    /// The generation: the newest birth or death of a pass (see the module notes).
    generation: AtomicU64,
    /// Slots whose dead pass no packet can see any more; the writer takes them
    /// back when it next needs one. Its own `Arc`, as `spares`.
    reclaimed: Arc<Reclaimed>,
    /// Append-only: an entry is written before any published pass names it.
    anchors: [AtomicU32; MAX_ANCHORS],
    anchor_count: AtomicUsize,
    tables: [Atomic<Table>; MAX_TABLES],
    /// Retired pass versions for the writer to reuse. In an `Arc` of its own: the
    /// epoch callbacks that fill it hold a reference, and its counter must not
    /// share a cache line with the fields every packet reads.
    spares: Arc<Spares>,
}

impl Shared {
    fn new() -> Shared {
        let anchors = std::array::from_fn(|_| AtomicU32::new(0));
        Shared {
            slots: (0..MAX_PASSES).map(|_| Atomic::null()).collect(),
            high: AtomicUsize::new(0),
            generation: AtomicU64::new(0),
            reclaimed: Arc::new(Reclaimed::new()),
            anchors,
            // Anchor 0 (the packet start, `Const` at offset 0) is the zero word.
            anchor_count: AtomicUsize::new(1),
            tables: std::array::from_fn(|_| Atomic::null()),
            spares: Arc::new(Spares::new()),
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // SAFETY: `drop` runs when the last `Arc` is gone, so no reader or writer can
        // hold a guard on these pointers; each non-null one is owned by this table.
        unsafe {
            let g = epoch::unprotected();
            for s in self.slots.iter() {
                let p = s.load(Ordering::Relaxed, g);
                if !p.is_null() {
                    drop(p.into_owned());
                }
            }
            for t in self.tables.iter() {
                let p = t.load(Ordering::Relaxed, g);
                if !p.is_null() {
                    drop(p.into_owned());
                }
            }
        }
    }
}

/// The pass set as one packet's evaluation sees it: pinned, at one generation, with
/// the slot count read once so that every index stays below the size the scratch
/// space was reset to.
pub(crate) struct View<'g> {
    shared: &'g Shared,
    guard: &'g Guard,
    slots: usize,
    generation: u64,
}

impl<'g> View<'g> {
    pub(crate) fn new(shared: &'g Shared, guard: &'g Guard) -> View<'g> {
        // Acquire: every pass born at or before this generation is in its slot,
        // below `high`, and every death up to it is marked in its node.
        let generation = shared.generation.load(Ordering::Acquire);
        View {
            shared,
            guard,
            slots: shared.high.load(Ordering::Acquire).min(MAX_PASSES),
            generation,
        }
    }
}

impl Program for View<'_> {
    #[inline]
    fn slots(&self) -> usize {
        self.slots
    }

    #[inline]
    fn pass(&self, i: usize) -> Option<PassRef<'_>> {
        if i >= self.slots {
            return None;
        }
        let p = self.shared.slots[i].load(Ordering::Acquire, self.guard);
        // SAFETY: a node is only freed or reused (`spare.rs`) by an epoch callback
        // deferred after it has been unlinked, and the guard pins an epoch in which it was still reachable, so
        // it lives at least as long as `self.guard`.
        let n = unsafe { p.as_ref() }?;
        // Relaxed: a death at or before this generation was made visible by the
        // acquire in `View::new`; a later one may be seen or not, and either way
        // the pass still lived at this generation.
        if n.born > self.generation || n.died.load(Ordering::Relaxed) <= self.generation {
            return None;
        }
        Some(PassRef {
            kind: n.kind,
            parent: n.parent,
            clause: n.clause,
            steps: &n.steps,
            pool: &n.pool,
            stamps: Some(&n.stamps[..n.steps.len()]),
            id: n.id,
        })
    }

    #[inline]
    fn anchor(&self, a: usize) -> Option<Anchor> {
        if a >= self.shared.anchor_count.load(Ordering::Acquire) {
            return None;
        }
        Some(Anchor(self.shared.anchors[a].load(Ordering::Relaxed)))
    }

    #[inline]
    fn contains(&self, table: u32, key: u64) -> Option<bool> {
        let t = self
            .shared
            .tables
            .get(table as usize)?
            .load(Ordering::Acquire, self.guard);
        // SAFETY: as for passes: a replaced table is freed only after the epochs
        // pinned before the swap have ended.
        let t = unsafe { t.as_ref() }?;
        Some(t.contains(key))
    }
}
