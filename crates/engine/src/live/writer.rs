//! The editing side of a live pass set: the seeds' libswift routines (Table 2).
//!
//! Every routine costs O(size of the change): it copies at most one pass (32
//! instructions) or one clause, or touches one hash-table slot. None of them looks at
//! the other passes, so the cost does not grow with the pass set.

use super::spare::Chain;
use super::table::Table;
use super::{extend_lines, reserve_lines, Node, Shared};
use crate::op::decode_step;
use crossbeam_epoch::{self as epoch, Owned};
use netsift_isa::insn::Opcode;
use netsift_isa::{Anchor, Instruction, PassKind, PassSet, MAX_ANCHORS, MAX_INSNS, MAX_PASSES};
use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// How long an edit that needs a slot waits for deleted passes' slots to come back
/// before it reports the set full.
const RECLAIM_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// A pass of a live set. It names one slot and one life of that slot: once the pass
/// is deleted its id is refused even if the slot is reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PassId {
    slot: u16,
    gen: u32,
}

impl PassId {
    /// The pass's slot, which is also its evaluation order among root passes.
    pub fn index(self) -> usize {
        self.slot as usize
    }
}

impl fmt::Display for PassId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pass {}", self.slot)
    }
}

/// The passes added together by [`Writer::add_clause`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClauseId(u32);

/// Why an edit was refused. The live set is unchanged after an error.
///
/// `Display` names the pass, instruction or limit at fault; [`LiveError::kind`]
/// says which refusal it is, for a caller that acts on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveError {
    kind: LiveErrorKind,
}

impl LiveError {
    /// Which refusal this is.
    pub fn kind(&self) -> &LiveErrorKind {
        &self.kind
    }
}

impl From<LiveErrorKind> for LiveError {
    fn from(kind: LiveErrorKind) -> LiveError {
        LiveError { kind }
    }
}

impl fmt::Display for LiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl std::error::Error for LiveError {}

/// Which edit a [`LiveError`] refused, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LiveErrorKind {
    /// Every one of the [`MAX_PASSES`] slots is taken.
    TooManyPasses,
    /// No run of this many free slots is left for a clause's passes.
    NoRoomForClause(usize),
    /// The pass already holds [`MAX_INSNS`] instructions.
    TooManyInstructions(PassId),
    /// The anchor table is full ([`MAX_ANCHORS`] entries), or an anchor names a
    /// parent that is not earlier.
    TooManyAnchors,
    /// Every one of the [`super::MAX_TABLES`] SET tables exists already.
    TooManyTables,
    /// The pass was deleted, or the id never named a pass of this set.
    NoSuchPass(PassId),
    /// The clause was deleted, or the id never named a clause of this set.
    NoSuchClause,
    /// The pass has no instruction at `index`.
    NoSuchInstruction {
        /// The pass edited.
        pass: PassId,
        /// The index asked for.
        index: usize,
    },
    /// `poke_inst` named a word past the instruction's eight.
    NoSuchWord {
        /// The pass edited.
        pass: PassId,
        /// The instruction's index.
        index: usize,
        /// The word asked for (0 is the command word).
        word: usize,
    },
    /// `publish` on a pass that is already visible to readers.
    AlreadyPublished(PassId),
    /// `add_param`/`del_param` on an instruction without equality operands.
    NoOperands {
        /// The pass edited.
        pass: PassId,
        /// The instruction's index.
        index: usize,
    },
    /// `add_param` on an instruction whose operand words are all used.
    Full {
        /// The pass edited.
        pass: PassId,
        /// The instruction's index.
        index: usize,
        /// How many operands it holds.
        capacity: usize,
    },
    /// `del_param` of a value the instruction does not hold.
    NoSuchParam {
        /// The pass edited.
        pass: PassId,
        /// The instruction's index.
        index: usize,
        /// The value asked for.
        value: u32,
    },
    /// A pass with GROUP instructions shares sub-passes with its clause, so it is not
    /// duplicated alone.
    HasGroup(PassId),
    /// No SET table has this number.
    NoSuchTable(u32),
}

impl fmt::Display for LiveErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LiveErrorKind::TooManyPasses => write!(f, "a live set holds at most {MAX_PASSES} passes"),
            LiveErrorKind::NoRoomForClause(n) => {
                write!(f, "no room for a clause of {n} passes (at most {MAX_PASSES} in all)")
            }
            LiveErrorKind::TooManyInstructions(p) => {
                write!(f, "{p}: a pass holds at most {MAX_INSNS} instructions")
            }
            LiveErrorKind::TooManyAnchors => write!(f, "a live set holds at most {MAX_ANCHORS} anchors"),
            LiveErrorKind::TooManyTables => {
                write!(f, "a live set holds at most {} tables", super::MAX_TABLES)
            }
            LiveErrorKind::NoSuchPass(p) => write!(f, "{p} does not exist (deleted?)"),
            LiveErrorKind::NoSuchClause => write!(f, "no such clause (deleted?)"),
            LiveErrorKind::NoSuchInstruction { pass, index } => {
                write!(f, "{pass} has no instruction {index}")
            }
            LiveErrorKind::NoSuchWord { pass, index, word } => {
                write!(f, "{pass}, instruction {index}: no word {word} (0..=7)")
            }
            LiveErrorKind::AlreadyPublished(p) => write!(f, "{p} is already published"),
            LiveErrorKind::NoOperands { pass, index } => write!(
                f,
                "{pass}, instruction {index}: only EQ, MEQ and EQ2 take SIMD operands"
            ),
            LiveErrorKind::Full {
                pass,
                index,
                capacity,
            } => write!(
                f,
                "{pass}, instruction {index}: already holds {capacity} operands (duplicate the pass)"
            ),
            LiveErrorKind::NoSuchParam { pass, index, value } => {
                write!(f, "{pass}, instruction {index}: no operand {value:#x}")
            }
            LiveErrorKind::HasGroup(p) => write!(
                f,
                "{p} has GROUP instructions; its sub-passes belong to its clause, so add a clause instead"
            ),
            LiveErrorKind::NoSuchTable(t) => write!(f, "no table {t}"),
        }
    }
}

/// The writer's own copy of a pass: what the next published version is built from.
#[derive(Clone)]
struct WPass {
    kind: PassKind,
    parent: Option<u16>,
    clause: u32,
    insns: Vec<Instruction>,
    stamps: Vec<u64>,
    published: bool,
    /// The generation of its first publish (0 for a draft).
    born: u64,
    /// The first instruction an edit has changed since the last publish: the
    /// steps before it (unless an ARITH among them reads past it) are the
    /// published version's, and the next publish copies them instead of decoding.
    dirty: usize,
}

/// What a [`Writer`] has done, for tests of what an edit costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriterStats {
    /// Pass versions published (one per publish of a pass, first or edit).
    pub versions: u64,
    /// Steps decoded for them; the others were copied from the version before.
    pub decoded: u64,
}

/// The single editing handle of a live set (see [`super`]).
pub struct Writer {
    shared: Arc<Shared>,
    passes: Vec<Option<WPass>>,
    /// One bit per slot in use (draft or published): finding a free slot scans at
    /// most 64 words, whatever the number of passes.
    used: [u64; MAX_PASSES / 64],
    gens: Vec<u32>,
    /// Published passes are below this (mirrors `Shared::high`).
    high: usize,
    anchors: Vec<Anchor>,
    tables: usize,
    clauses: HashMap<u32, Vec<u16>>,
    next_node: u64,
    next_stamp: u64,
    next_clause: u32,
    /// Mirrors `Shared::generation` (only this writer changes it).
    generation: u64,
    /// Deleted passes whose slots are not yet handed back.
    pending: usize,
    /// The instruction and stamp vectors of deleted passes, emptied, for the next
    /// new or duplicated pass (at most [`MAX_SPARE_VECS`]): making a server pass
    /// and deleting it again allocates nothing.
    spare_vecs: Vec<(Vec<Instruction>, Vec<u64>)>,
    /// Versions unlinked since the last hand-over to the epoch reclamation
    /// (at most [`RETIRE_BATCH`]; see `spare::Chain`).
    retired: Chain,
    /// Between [`Writer::hold`] and [`Writer::release`]: versions built but not yet in their slots,
    /// stored one after another when it ends (at most [`MAX_HELD`]).
    holding: bool,
    held: Vec<(usize, Box<Node>)>,
    stats: WriterStats,
}

/// Versions [`Writer::hold`] keeps back before it stores them all.
const MAX_HELD: usize = 8;

/// Unlinked versions handed to the epoch reclamation at once. Each hand-over
/// pins, so an edit pins once in this many publishes; up to 64 hand-overs wait
/// in this thread's bag before they go to the collector, so about 64 × this
/// many versions are in flight in the steady state (2 MB at 16, well under the
/// spares' bound).
const RETIRE_BATCH: usize = 16;

/// Vector pairs kept by [`Writer`] for reuse.
const MAX_SPARE_VECS: usize = 64;

impl Writer {
    pub(crate) fn new(shared: Arc<Shared>) -> Writer {
        Writer {
            shared,
            passes: vec![None; MAX_PASSES],
            used: [0; MAX_PASSES / 64],
            gens: vec![0; MAX_PASSES],
            high: 0,
            anchors: vec![Anchor(0)],
            tables: 0,
            clauses: HashMap::new(),
            next_node: 1,
            next_stamp: 1,
            next_clause: 1,
            generation: 0,
            pending: 0,
            spare_vecs: Vec::with_capacity(MAX_SPARE_VECS),
            retired: Chain::new(),
            holding: false,
            held: Vec::with_capacity(MAX_HELD),
            stats: WriterStats::default(),
        }
    }

    fn stamp(&mut self) -> u64 {
        self.next_stamp += 1;
        self.next_stamp
    }

    fn clause_id(&mut self) -> u32 {
        self.next_clause = self.next_clause.wrapping_add(1);
        self.next_clause
    }

    fn get(&self, id: PassId) -> Result<&WPass, LiveError> {
        let s = id.slot as usize;
        match self.passes.get(s) {
            Some(Some(p)) if self.gens[s] == id.gen => Ok(p),
            _ => Err(LiveErrorKind::NoSuchPass(id).into()),
        }
    }

    fn id(&self, slot: usize) -> PassId {
        PassId {
            slot: slot as u16,
            gen: self.gens[slot],
        }
    }

    /// A free slot, preferring the first one after `after` so that a child follows
    /// its parent (depth-first order, which hierarchical execution relies on).
    fn free_slot(&mut self, after: Option<usize>) -> Result<usize, LiveError> {
        self.with_reclaim(|w| w.find_free_slot(after), LiveErrorKind::TooManyPasses)
    }

    fn find_free_slot(&self, after: Option<usize>) -> Option<usize> {
        let start = after.map_or(0, |a| a + 1) % MAX_PASSES;
        let words = self.used.len();
        for k in 0..=words {
            let w = (start / 64 + k) % words;
            let mut free = !self.used[w];
            if k == 0 {
                // The first word: only slots at or after `start`.
                free &= u64::MAX << (start % 64);
            }
            if free != 0 {
                return Some(w * 64 + free.trailing_zeros() as usize);
            }
        }
        None
    }

    fn is_used(&self, slot: usize) -> bool {
        self.used[slot / 64] & 1 << (slot % 64) != 0
    }

    /// Runs a slot search, taking back the slots of deleted passes first. If it
    /// still finds nothing while deletions wait for readers, it pushes the epoch
    /// reclamation on for at most [`RECLAIM_WAIT`]: the process's deferred frees
    /// are queued in order, so a backlog from heavy editing takes a while to pass,
    /// and a reader that holds one session forever keeps its slots for good (then
    /// the set is full).
    fn with_reclaim(
        &mut self,
        find: impl Fn(&Self) -> Option<usize>,
        full: LiveErrorKind,
    ) -> Result<usize, LiveError> {
        self.reclaim();
        let mut start = None;
        for round in 0u32.. {
            if let Some(s) = find(self) {
                return Ok(s);
            }
            if self.pending == 0 {
                break;
            }
            let since = *start.get_or_insert_with(std::time::Instant::now);
            if since.elapsed() > RECLAIM_WAIT {
                break;
            }
            epoch::pin().flush();
            if round >= 64 {
                std::thread::yield_now();
            }
            self.reclaim();
        }
        Err(full.into())
    }

    /// Takes back the slots whose dead passes no packet can see any more.
    fn reclaim(&mut self) {
        if self.pending == 0 {
            return;
        }
        let mut words = self.shared.reclaimed.take_words();
        if words == 0 {
            return;
        }
        // No pin: only this writer swaps or unlinks slots, and the versions it
        // unlinks here go through `retire`, which pins per batch.
        // SAFETY: no other thread frees what this guard loads.
        let g = unsafe { epoch::unprotected() };
        while words != 0 {
            let w = words.trailing_zeros() as usize;
            words &= words - 1;
            let mut bits = self.shared.reclaimed.take_word(w);
            while bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let old = self.shared.slots[slot].swap(epoch::Shared::null(), Ordering::AcqRel, g);
                if !old.is_null() {
                    self.retire(old.as_raw().cast_mut());
                }
                self.set_used(slot, false);
                self.pending -= 1;
            }
        }
        // Shrink the scanned range past trailing empty slots; each slot is passed
        // over once per time it was filled, so this is O(1) amortised.
        let mut h = self.high;
        while h > 0
            && self.shared.slots[h - 1]
                .load(Ordering::Relaxed, g)
                .is_null()
        {
            h -= 1;
        }
        if h != self.high {
            self.high = h;
            self.shared.high.store(h, Ordering::Release);
        }
    }

    fn set_used(&mut self, slot: usize, on: bool) {
        let bit = 1u64 << (slot % 64);
        if on {
            self.used[slot / 64] |= bit;
        } else {
            self.used[slot / 64] &= !bit;
        }
    }

    /// Writes the pass's next version into its slot (one pointer store) and frees the
    /// old version once no reader can hold it. A first publish is a birth: it
    /// takes the next generation; an edit keeps the pass's birth.
    fn publish_slot(&mut self, slot: usize) {
        // No pin: this writer is the only one that swaps or unlinks a slot's
        // node, so the node it loads stays alive until it retires it itself,
        // and retiring goes through `retire`, which pins per batch.
        // SAFETY: as just said, no other thread frees what this guard loads.
        let g = unsafe { epoch::unprotected() };
        let first = self.passes[slot].as_ref().is_some_and(|p| p.born == 0);
        let born = if first {
            self.generation + 1
        } else {
            self.passes[slot].as_ref().map_or(0, |p| p.born)
        };
        // A version held back is the one this publish must follow (and a first
        // publish advances the generation, which must come after the stores).
        if first || self.held.iter().any(|&(s, _)| s == slot) || self.held.len() >= MAX_HELD {
            self.store_held();
        }
        let Some(p) = self.passes[slot].as_mut() else {
            return;
        };
        p.born = born;
        // A retired version back from the readers if there is one: its vectors keep
        // their capacity, so the steady state allocates nothing (`spare.rs`).
        // SAFETY: this writer is the set's only popper.
        let mut node =
            unsafe { self.shared.spares.pop() }.unwrap_or_else(|| Box::new(Node::empty()));
        node.id = self.next_node;
        node.born = born;
        *node.died.get_mut() = u64::MAX;
        node.kind = p.kind;
        node.parent = p.parent;
        node.clause = p.clause;
        // Relaxed: this writer stored the pointer itself.
        let cur = self.shared.slots[slot].load(Ordering::Relaxed, g);
        let prev = if first {
            None
        } else {
            // SAFETY: only this writer swaps or unlinks a slot's node, so the
            // version published now stays alive at least until the store below.
            unsafe { cur.as_ref() }
        };
        // Decoded here, off the packet path: readers run the version's steps. Only
        // the steps an edit reaches are decoded again (`decode_step` reads
        // instructions `k..=k + arith_ext` only); the others are copied.
        let len = p.insns.len();
        // A duplicated pass's first version takes its leading steps from its
        // parent's published version instead: an instruction with the same
        // stamp is the same image (every edit takes a fresh stamp, and only
        // `dup_pass` copies one), and decoding does not read the `copied`
        // mark, which is set again below. A new server's passes in the
        // follower are duplicates that differ from the first rewritten
        // instruction on.
        let (prev, dirty) = match (prev, p.parent) {
            (Some(prev), _) => (Some(prev), p.dirty.min(len)),
            (None, Some(parent)) => {
                let par = self.shared.slots[parent as usize].load(Ordering::Acquire, g);
                // SAFETY: as above: only this writer unlinks the parent's
                // version, so it stays alive through this publish.
                match unsafe { par.as_ref() } {
                    Some(par) => {
                        let same = p
                            .stamps
                            .iter()
                            .zip(&par.stamps[..par.steps.len()])
                            .take_while(|(a, b)| a == b)
                            .count();
                        (Some(par), same.min(len))
                    }
                    None => (None, 0),
                }
            }
            (None, None) => (None, 0),
        };
        let keep = match prev {
            Some(prev) if prev.steps.len() >= dirty => (0..dirty)
                .find(|&k| k + p.insns[k].arith_ext() >= dirty)
                .unwrap_or(dirty),
            _ => 0,
        };
        node.steps.clear();
        node.pool.clear();
        // Sized once: the version this one follows is about its size (an
        // edit adds an operand at most, unless it rewrites whole instructions).
        // A node made fresh, when readers held the spares back, would
        // otherwise grow each vector two or three times inside the edit; a
        // reused one has the room already, and this is a comparison.
        reserve_lines(&mut node.steps, len);
        reserve_lines(&mut node.pool, prev.map_or(1, |prev| prev.pool.len() + 1));
        if let Some(prev) = prev.filter(|_| keep > 0) {
            extend_lines(&mut node.steps, &prev.steps[..keep]);
            extend_lines(
                &mut node.pool,
                &prev.pool[..prev.own.pool_at[keep] as usize],
            );
            node.own.pool_at[..keep].copy_from_slice(&prev.own.pool_at[..keep]);
            if first {
                // The parent's steps: this pass's own `copied` marks.
                for (k, step) in node.steps.iter_mut().enumerate() {
                    step.copied = Instruction::reusable(&p.insns, k);
                }
            }
        }
        for k in keep..len {
            node.own.pool_at[k] = node.pool.len() as u32;
            node.steps.push(decode_step(&p.insns, k, &mut node.pool));
        }
        node.own.pool_at[len] = node.pool.len() as u32;
        self.stats.versions += 1;
        self.stats.decoded += (len - keep) as u64;
        p.dirty = usize::MAX;
        node.stamps[..p.stamps.len()].copy_from_slice(&p.stamps);
        self.next_node += 1;
        if self.holding && !first {
            self.held.push((slot, node));
            // SAFETY: this writer is the set's only popper.
            unsafe { self.shared.spares.ready_ahead() };
            return;
        }
        // A plain store, not a swap: only this writer changes slots, so the
        // version it replaces is the one loaded above, and a locked swap would
        // wait for every store before it (the new version's) to leave the
        // core. Release: a reader that loads the pointer sees the version whole.
        self.shared.slots[slot].store(Owned::from(node), Ordering::Release);
        if !cur.is_null() {
            self.retire(cur.as_raw().cast_mut());
        }
        // SAFETY: this writer is the set's only popper.
        unsafe { self.shared.spares.ready_ahead() };
        if slot >= self.high {
            self.high = slot + 1;
            self.shared.high.store(self.high, Ordering::Release);
        }
        if first {
            self.advance(born);
        }
    }

    /// Holds back the versions that edits publish from now until
    /// [`Writer::release`], which stores them into their slots one after
    /// another rather than each as it is built. A filtering thread reads the
    /// slot table for every packet, so each store into it waits for that
    /// thread's copy of the line to be taken away, and every store after it
    /// waits too (x86 commits stores in order): the two sides of a follower's
    /// listener, released together, pay that once. Readers see each pass
    /// before or after its edit, as always; they may see one pass of the batch
    /// edited and the next not yet. An edit that cannot wait (a first publish,
    /// a deletion, a second edit of a held pass) stores what is held first.
    pub fn hold(&mut self) {
        self.holding = true;
    }

    /// Stores the versions held since [`Writer::hold`] and publishes edits
    /// one by one again.
    pub fn release(&mut self) {
        self.holding = false;
        self.store_held();
    }

    /// Stores the versions built since [`Writer::hold`] into their
    /// slots, then retires what they replace.
    fn store_held(&mut self) {
        if self.held.is_empty() {
            return;
        }
        // SAFETY: as in `publish_slot`: only this writer swaps or unlinks a
        // slot's node.
        let g = unsafe { epoch::unprotected() };
        let mut old = [std::ptr::null_mut::<Node>(); MAX_HELD];
        let n = self.held.len();
        for (k, (slot, node)) in self.held.drain(..).enumerate() {
            // Relaxed: this writer stored the pointer itself.
            old[k] = self.shared.slots[slot]
                .load(Ordering::Relaxed, g)
                .as_raw()
                .cast_mut();
            self.shared.slots[slot].store(Owned::from(node), Ordering::Release);
        }
        for &o in &old[..n] {
            if !o.is_null() {
                self.retire(o);
            }
        }
    }

    /// Retires a pass version this writer unlinked: once no reader can hold it,
    /// it goes back to the spares for a later publish. Versions are handed to
    /// the epoch reclamation [`RETIRE_BATCH`] at a time.
    fn retire(&mut self, old: *mut Node) {
        // SAFETY: `old` was a slot's node (a `Box` once, via `Owned`) and the
        // caller unlinked it; it is in no chain yet.
        unsafe { self.retired.push(old) };
        if self.retired.len() >= RETIRE_BATCH {
            self.hand_over();
        }
    }

    /// Hands the versions retired so far to the epoch reclamation.
    fn hand_over(&mut self) {
        if self.retired.len() == 0 {
            return;
        }
        let chain = self.retired.take();
        let spares = self.shared.spares.clone();
        // Pinned after every node of the chain was unlinked, so the call runs
        // after every reader that could have loaded one has unpinned.
        let g = epoch::pin();
        g.defer(move || {
            // SAFETY: see above: no reader holds a node of the chain any more.
            unsafe { spares.push_chain(chain) };
        });
    }

    /// Makes generation `g` current. SeqCst (not only Release) so that the epoch
    /// argument in `retire_slot` holds: a reader that read an older generation
    /// pinned before this store.
    fn advance(&mut self, g: u64) {
        self.generation = g;
        self.shared.generation.store(g, Ordering::SeqCst);
    }

    /// A death: the pass is gone for packets that read the next generation, and
    /// its slot comes back once no packet that read an older one is left.
    fn retire_slot(&mut self, slot: usize) {
        self.store_held();
        let g = epoch::pin();
        let node = self.shared.slots[slot].load(Ordering::Acquire, &g);
        // SAFETY: only this writer unlinks nodes, so the slot's node is alive.
        let Some(n) = (unsafe { node.as_ref() }) else {
            return;
        };
        let died = self.generation + 1;
        n.died.store(died, Ordering::Relaxed);
        self.advance(died);
        // Every reader that read an older generation pinned before `advance`, so
        // this runs after it has unpinned; later readers see the pass dead.
        let reclaimed = self.shared.reclaimed.clone();
        g.defer(move || reclaimed.mark(slot));
        self.pending += 1;
    }

    /// Applies an edit to a pass and publishes the result if the pass is published.
    /// `f` must check everything before it changes anything: on error the pass must
    /// be as it was (editing in place saves copying the pass on every update).
    /// `from` is the first instruction the edit may change.
    fn edit(
        &mut self,
        id: PassId,
        from: usize,
        f: impl FnOnce(&mut WPass, &mut u64) -> Result<(), LiveError>,
    ) -> Result<(), LiveError> {
        self.get(id)?;
        let slot = id.slot as usize;
        let mut stamp = self.next_stamp;
        let p = self.passes[slot].as_mut().expect("checked above");
        f(p, &mut stamp)?;
        p.dirty = p.dirty.min(from);
        self.next_stamp = stamp;
        if p.published {
            self.publish_slot(slot);
        }
        Ok(())
    }

    /// SPF_NewPass: a new, empty root pass, as a draft (see [`Self::publish`]). It is
    /// a clause of its own.
    pub fn new_pass(&mut self) -> Result<PassId, LiveError> {
        let slot = self.free_slot(None)?;
        self.set_used(slot, true);
        let clause = self.clause_id();
        let (insns, stamps) = self.spare_vecs.pop().unwrap_or_default();
        self.passes[slot] = Some(WPass {
            kind: PassKind::Root,
            parent: None,
            clause,
            insns,
            stamps,
            published: false,
            born: 0,
            dirty: 0,
        });
        Ok(self.id(slot))
    }

    /// SPF_DupPass: a draft child of `parent`, a bit-exact copy with every instruction
    /// marked `copied`. Its copied instructions reuse the parent's results until
    /// either pass rewrites them. The child is a clause of its own.
    pub fn dup_pass(&mut self, parent: PassId) -> Result<PassId, LiveError> {
        let src = self.get(parent)?;
        if src
            .insns
            .iter()
            .any(|i| i.decode().opcode == Some(Opcode::Group))
        {
            return Err(LiveErrorKind::HasGroup(parent).into());
        }
        let (mut insns, mut stamps) = self.spare_vecs.pop().unwrap_or_default();
        let src = self.get(parent)?;
        insns.extend(src.insns.iter().map(|i| i.with_copied(true)));
        stamps.extend_from_slice(&src.stamps);
        let kind = src.kind;
        let slot = self.free_slot(Some(parent.index()))?;
        self.set_used(slot, true);
        let clause = self.clause_id();
        self.passes[slot] = Some(WPass {
            kind,
            parent: Some(parent.slot),
            clause,
            insns,
            stamps,
            published: false,
            born: 0,
            dirty: 0,
        });
        Ok(self.id(slot))
    }

    /// Makes a draft pass visible to the filtering threads, in one store.
    pub fn publish(&mut self, id: PassId) -> Result<(), LiveError> {
        if self.get(id)?.published {
            return Err(LiveErrorKind::AlreadyPublished(id).into());
        }
        let slot = id.slot as usize;
        if let Some(p) = self.passes[slot].as_mut() {
            p.published = true;
        }
        self.publish_slot(slot);
        Ok(())
    }

    /// SPF_DelPass. Children of the pass keep working: they evaluate the instructions
    /// they copied from it themselves.
    pub fn del_pass(&mut self, id: PassId) -> Result<(), LiveError> {
        let p = self.get(id)?;
        let (published, clause) = (p.published, p.clause);
        let slot = id.slot as usize;
        if let Some(old) = self.passes[slot].take() {
            if self.spare_vecs.len() < MAX_SPARE_VECS {
                let (mut insns, mut stamps) = (old.insns, old.stamps);
                insns.clear();
                stamps.clear();
                self.spare_vecs.push((insns, stamps));
            }
        }
        self.gens[slot] = self.gens[slot].wrapping_add(1);
        if published {
            // The slot stays in use until no packet can see the dead pass.
            self.retire_slot(slot);
        } else {
            self.set_used(slot, false);
        }
        if let Some(members) = self.clauses.get_mut(&clause) {
            members.retain(|&s| s as usize != slot);
            if members.is_empty() {
                self.clauses.remove(&clause);
            }
        }
        Ok(())
    }

    /// SPF_SelectOp: puts an instruction (an image from `netsift_isa::insn::build`)
    /// at `index`; `index` equal to the pass length appends. The `copied` mark is
    /// cleared: the slot no longer holds the parent's instruction.
    pub fn select_op(
        &mut self,
        id: PassId,
        index: usize,
        insn: Instruction,
    ) -> Result<(), LiveError> {
        self.edit(id, index, |p, stamp| {
            *stamp += 1;
            let insn = insn.with_copied(false);
            if index < p.insns.len() {
                p.insns[index] = insn;
                p.stamps[index] = *stamp;
            } else if index == p.insns.len() {
                if p.insns.len() >= MAX_INSNS {
                    return Err(LiveErrorKind::TooManyInstructions(id).into());
                }
                p.insns.push(insn);
                p.stamps.push(*stamp);
            } else {
                return Err(LiveErrorKind::NoSuchInstruction { pass: id, index }.into());
            }
            Ok(())
        })
    }

    /// SPF_SelectOp on several instructions of one pass at once: each `(index,
    /// image)` replaces an existing instruction, and a published pass gets one
    /// new version holding all of them (readers see every replacement or none).
    /// A follower retargets an idle server pass this way: its host and port
    /// tests in one publish instead of two. Nothing changes on error.
    pub fn select_ops(
        &mut self,
        id: PassId,
        ops: &[(usize, Instruction)],
    ) -> Result<(), LiveError> {
        let Some(from) = ops.iter().map(|&(k, _)| k).min() else {
            return self.get(id).map(|_| ());
        };
        self.edit(id, from, |p, stamp| {
            if let Some(&(index, _)) = ops.iter().find(|&&(k, _)| k >= p.insns.len()) {
                return Err(LiveErrorKind::NoSuchInstruction { pass: id, index }.into());
            }
            for &(index, insn) in ops {
                *stamp += 1;
                p.insns[index] = insn.with_copied(false);
                p.stamps[index] = *stamp;
            }
            Ok(())
        })
    }

    /// Removes instruction `index` from a pass.
    pub fn del_inst(&mut self, id: PassId, index: usize) -> Result<(), LiveError> {
        self.edit(id, index, |p, _| {
            if index >= p.insns.len() {
                return Err(LiveErrorKind::NoSuchInstruction { pass: id, index }.into());
            }
            p.insns.remove(index);
            p.stamps.remove(index);
            Ok(())
        })
    }

    /// SPF_PokeInst: writes word `word` (0 = command word, 1..=7 = p1..p7) of an
    /// instruction as given. Any image is safe to run, so nothing is checked.
    pub fn poke_inst(
        &mut self,
        id: PassId,
        index: usize,
        word: usize,
        value: u32,
    ) -> Result<(), LiveError> {
        self.edit(id, index, |p, stamp| {
            if word > 7 {
                return Err(LiveErrorKind::NoSuchWord {
                    pass: id,
                    index,
                    word,
                }
                .into());
            }
            let insn = p
                .insns
                .get_mut(index)
                .ok_or(LiveErrorKind::NoSuchInstruction { pass: id, index })?;
            insn.0[word] = value;
            *stamp += 1;
            p.stamps[index] = *stamp;
            Ok(())
        })
    }

    /// SPF_AddParam: adds one SIMD operand to an EQ, MEQ or EQ2 instruction (a port to
    /// `tcp port (21 or 2121)`, an address to `host (A or B)`). Adding an operand
    /// that is already there changes nothing.
    pub fn add_param(&mut self, id: PassId, index: usize, value: u32) -> Result<(), LiveError> {
        let insn = *self
            .get(id)?
            .insns
            .get(index)
            .ok_or(LiveErrorKind::NoSuchInstruction { pass: id, index })?;
        let (first, size, n, cap) = insn
            .operand_slots()
            .ok_or(LiveErrorKind::NoOperands { pass: id, index })?;
        let v = value & size.max();
        if (0..n).any(|i| insn.operand(first, size, i) == v) {
            return Ok(());
        }
        if n >= cap {
            return Err(LiveErrorKind::Full {
                pass: id,
                index,
                capacity: cap,
            }
            .into());
        }
        let new = insn
            .with_operand(first, size, n, v)
            .with_count(n + 1)
            .with_copied(false);
        self.edit(id, index, |p, stamp| {
            *stamp += 1;
            p.insns[index] = new;
            p.stamps[index] = *stamp;
            Ok(())
        })
    }

    /// SPF_DelParam: removes one SIMD operand (the last operand moves into its place;
    /// order does not matter to "any of"). Removing the last operand leaves an
    /// instruction that matches nothing.
    pub fn del_param(&mut self, id: PassId, index: usize, value: u32) -> Result<(), LiveError> {
        let insn = *self
            .get(id)?
            .insns
            .get(index)
            .ok_or(LiveErrorKind::NoSuchInstruction { pass: id, index })?;
        let (first, size, n, _) = insn
            .operand_slots()
            .ok_or(LiveErrorKind::NoOperands { pass: id, index })?;
        let at = (0..n)
            .find(|&i| insn.operand(first, size, i) == value)
            .ok_or(LiveErrorKind::NoSuchParam {
                pass: id,
                index,
                value,
            })?;
        let last = insn.operand(first, size, n - 1);
        let new = insn
            .with_operand(first, size, at, last)
            .with_operand(first, size, n - 1, 0)
            .with_count(n - 1)
            .with_copied(false);
        self.edit(id, index, |p, stamp| {
            *stamp += 1;
            p.insns[index] = new;
            p.stamps[index] = *stamp;
            Ok(())
        })
    }

    /// The instructions of a pass (draft or published).
    pub fn instructions(&self, id: PassId) -> Result<&[Instruction], LiveError> {
        Ok(&self.get(id)?.insns)
    }

    /// Versions published and steps decoded so far.
    pub fn stats(&self) -> WriterStats {
        self.stats
    }

    /// Whether the id names a pass of this set.
    pub fn exists(&self, id: PassId) -> bool {
        self.get(id).is_ok()
    }

    /// Published passes.
    pub fn published(&self) -> usize {
        self.passes
            .iter()
            .filter(|p| p.as_ref().is_some_and(|p| p.published))
            .count()
    }

    /// Adds an anchor (or finds an identical one) for instructions built by hand.
    pub fn anchor(&mut self, a: Anchor) -> Result<u8, LiveError> {
        if let Some(i) = self.anchors.iter().position(|&x| x == a) {
            return Ok(i as u8);
        }
        let idx = self.anchors.len();
        if idx >= MAX_ANCHORS || a.parent() as usize >= idx {
            return Err(LiveErrorKind::TooManyAnchors.into());
        }
        self.shared.anchors[idx].store(a.0, Ordering::Relaxed);
        // Release: a reader that sees the count (or any pass published later) sees
        // the entry.
        self.shared.anchor_count.store(idx + 1, Ordering::Release);
        self.anchors.push(a);
        Ok(idx as u8)
    }

    /// Joins `set`'s anchor table to this one (finding or appending each entry, with
    /// its parent renumbered); entry `i` of the result is the live number of `set`'s
    /// anchor `i`. On error, entries appended so far stay: no pass names them, so they
    /// are harmless, and later clauses may reuse them.
    pub fn import_anchors(&mut self, set: &PassSet) -> Result<Vec<u8>, LiveError> {
        let mut map = vec![0u8; set.anchors().len().max(1)];
        for (i, a) in set.anchors().iter().enumerate().skip(1) {
            // An entry whose parent is not earlier never resolves in `set`; renumbered
            // onto an earlier live entry it would, so it becomes the live table's
            // never-resolving entry instead.
            map[i] = if (a.parent() as usize) < i {
                let parent = map[a.parent() as usize];
                self.anchor(Anchor((a.0 & !(0xff << 16)) | (parent as u32) << 16))?
            } else {
                self.unresolvable_anchor()?
            };
        }
        Ok(map)
    }

    /// An entry of the live anchor table that never resolves (its rule byte names
    /// no rule): where instructions of an imported set point when their anchor does
    /// not resolve there, so they stay invalid after renumbering.
    fn unresolvable_anchor(&mut self) -> Result<u8, LiveError> {
        self.anchor(Anchor(0xff << 24))
    }

    /// Copies `set`'s static key tables (`PassSet::tables`) into new live tables;
    /// entry `i` of the result is the live number of `set`'s table `i`. O(keys). A live
    /// set holds at most `MAX_TABLES` tables and never frees one, so a clause whose
    /// tables do not fit is refused with [`LiveErrorKind::TooManyTables`]; tables created
    /// before that stay unnamed, like anchors.
    pub fn import_tables(&mut self, set: &PassSet) -> Result<Vec<u32>, LiveError> {
        let mut map = Vec::with_capacity(set.tables().len());
        for t in set.tables() {
            let live = self.create_table(t.len())?;
            for &k in t.keys() {
                self.table_insert(live, k)?;
            }
            map.push(live);
        }
        Ok(map)
    }

    /// Adds a compiled pass set (one filter expression, e.g. from `netsift_pcapc`) as
    /// one clause: its passes keep their order, parents and GROUP ranges in a run of
    /// free slots, and its anchors join the live anchor table. Its key tables become
    /// live tables and its SETs name those; a set without tables keeps its SETs' table
    /// numbers, which then name this writer's tables (`create_table`). Cost: O(size of the
    /// clause). Sub-passes are published before the root passes that name them.
    pub fn add_clause(&mut self, set: &PassSet) -> Result<ClauseId, LiveError> {
        let n = set.passes().len();
        let base = self.free_run(n)?;
        // Anchors first (they only append, and an unused anchor is harmless).
        let map = self.import_anchors(set)?;
        // Anchors past the set's table do not resolve there.
        let refers_past = set
            .passes()
            .iter()
            .flat_map(|p| p.instructions())
            .any(|insn| {
                let past = std::cell::Cell::new(false);
                insn.map_anchors(|a| {
                    past.set(past.get() || a as usize >= map.len());
                    a
                });
                past.get()
            });
        let none = if refers_past {
            self.unresolvable_anchor()?
        } else {
            0
        };
        // A static set's key tables become live tables, and its SETs name those.
        let tables = self.import_tables(set)?;
        let clause = self.clause_id();
        let mut slots = Vec::with_capacity(n);
        for (i, p) in set.passes().iter().enumerate() {
            let parent = p.parent.map(|x| (x as usize + base) as u16);
            let mut insns = Vec::with_capacity(p.len());
            let mut stamps = Vec::with_capacity(p.len());
            for (k, insn) in p.instructions().iter().enumerate() {
                let mut im = insn.map_anchors(|a| map.get(a as usize).copied().unwrap_or(none));
                match im.decode().opcode {
                    Some(Opcode::Group) => im.0[1] = im.0[1].wrapping_add(base as u32),
                    // A set with key tables names them; one without names live tables
                    // (built by hand for this writer) and keeps its numbers. A table the
                    // static set lacks stays missing (the SET is invalid).
                    Some(Opcode::Set) if !tables.is_empty() => {
                        im.0[1] = tables.get(im.0[1] as usize).copied().unwrap_or(u32::MAX)
                    }
                    _ => {}
                }
                // A copied instruction that really is its parent's shares the stamp.
                let shared_stamp = p.parent.and_then(|q| {
                    let q = q as usize;
                    let pp = self.passes[base + q].as_ref()?;
                    (q < i
                        && insn.copied()
                        && pp.insns.get(k).map(|x| x.with_copied(true)) == Some(im))
                    .then(|| pp.stamps[k])
                });
                let s = match shared_stamp {
                    Some(s) => s,
                    None => self.stamp(),
                };
                insns.push(im);
                stamps.push(s);
            }
            self.set_used(base + i, true);
            self.passes[base + i] = Some(WPass {
                kind: p.kind,
                parent,
                clause,
                insns,
                stamps,
                published: true,
                born: 0,
                dirty: 0,
            });
            slots.push((base + i) as u16);
        }
        let order = (0..n)
            .filter(|&i| set.passes()[i].kind == PassKind::Sub)
            .chain((0..n).filter(|&i| set.passes()[i].kind == PassKind::Root));
        for i in order {
            self.publish_slot(base + i);
        }
        self.clauses.insert(clause, slots);
        Ok(ClauseId(clause))
    }

    /// The passes of a clause, in order.
    pub fn clause_passes(&self, c: &ClauseId) -> Result<Vec<PassId>, LiveError> {
        let slots = self.clauses.get(&c.0).ok_or(LiveErrorKind::NoSuchClause)?;
        Ok(slots.iter().map(|&s| self.id(s as usize)).collect())
    }

    /// Removes every pass of a clause, root passes first.
    pub fn del_clause(&mut self, c: &ClauseId) -> Result<(), LiveError> {
        let mut ids = self.clause_passes(c)?;
        ids.sort_by_key(|id| self.get(*id).map(|p| p.kind == PassKind::Sub).ok());
        for id in ids {
            self.del_pass(id)?;
        }
        Ok(())
    }

    /// The first run of `n` free slots.
    fn free_run(&mut self, n: usize) -> Result<usize, LiveError> {
        if n == 0 {
            return Err(LiveErrorKind::NoRoomForClause(0).into());
        }
        self.with_reclaim(
            |w| {
                let mut run = 0;
                for s in 0..MAX_PASSES {
                    run = if w.is_used(s) { 0 } else { run + 1 };
                    if run == n {
                        return Some(s + 1 - n);
                    }
                }
                None
            },
            LiveErrorKind::NoRoomForClause(n),
        )
    }

    /// A new hash table for SET instructions, sized for `capacity` keys (it grows
    /// past that). Returns its number.
    pub fn create_table(&mut self, capacity: usize) -> Result<u32, LiveError> {
        if self.tables >= super::MAX_TABLES {
            return Err(LiveErrorKind::TooManyTables.into());
        }
        let seed = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        let t = self.tables;
        self.shared.tables[t].store(
            Owned::new(Table::with_capacity(capacity, seed)),
            Ordering::Release,
        );
        self.tables += 1;
        Ok(t as u32)
    }

    fn table(&self, t: u32) -> Result<usize, LiveError> {
        ((t as usize) < self.tables)
            .then_some(t as usize)
            .ok_or(LiveErrorKind::NoSuchTable(t).into())
    }

    /// Adds a key (see [`super::set_key`]); false if it was there. O(1) amortised.
    pub fn table_insert(&mut self, t: u32, key: u64) -> Result<bool, LiveError> {
        let t = self.table(t)?;
        let g = epoch::pin();
        let cur = self.shared.tables[t].load(Ordering::Acquire, &g);
        // SAFETY: only this writer replaces tables, so `cur` stays valid here.
        let cur_ref = unsafe { cur.deref() };
        if cur_ref.needs_rebuild() {
            let next = Owned::new(cur_ref.rebuilt());
            let old = self.shared.tables[t].swap(next, Ordering::AcqRel, &g);
            // SAFETY: unlinked above; readers holding it are protected by their guards.
            unsafe { g.defer_destroy(old) };
        }
        let cur = self.shared.tables[t].load(Ordering::Acquire, &g);
        // SAFETY: as above.
        Ok(unsafe { cur.deref() }.insert(key))
    }

    /// Removes a key; false if it was not there. O(1).
    pub fn table_remove(&mut self, t: u32, key: u64) -> Result<bool, LiveError> {
        let t = self.table(t)?;
        let g = epoch::pin();
        let cur = self.shared.tables[t].load(Ordering::Acquire, &g);
        // SAFETY: only this writer replaces tables.
        Ok(unsafe { cur.deref() }.remove(key))
    }

    /// Keys in a table.
    pub fn table_len(&self, t: u32) -> Result<usize, LiveError> {
        let t = self.table(t)?;
        let g = epoch::pin();
        let cur = self.shared.tables[t].load(Ordering::Acquire, &g);
        // SAFETY: only this writer replaces tables.
        Ok(unsafe { cur.deref() }.len())
    }

    /// A readable listing of the live set (the `-d` form), drafts included.
    pub fn listing(&self) -> String {
        let mut s = String::new();
        if self.anchors.len() > 1 {
            s.push_str("anchors:\n");
            for (i, a) in self.anchors.iter().enumerate().skip(1) {
                let rule = a.rule().map_or("invalid", |r| r.name());
                let _ = writeln!(s, "  @{i} = {rule}(@{} + {})", a.parent(), a.offset());
            }
        }
        for (i, p) in self.passes.iter().enumerate() {
            let Some(p) = p else { continue };
            let kind = if p.kind == PassKind::Sub {
                "sub"
            } else {
                "pass"
            };
            let _ = write!(s, "{kind} {i}");
            if let Some(parent) = p.parent {
                let _ = write!(s, " (child of {parent})");
            }
            if !p.published {
                s.push_str(" [draft]");
            }
            if p.insns.is_empty() {
                s.push_str(": true");
            }
            s.push('\n');
            for (j, insn) in p.insns.iter().enumerate() {
                let _ = writeln!(s, "  {j:2}: {insn}");
            }
        }
        for t in 0..self.tables {
            let _ = writeln!(
                s,
                "table #{t}: {} keys",
                self.table_len(t as u32).unwrap_or(0)
            );
        }
        s
    }
}

impl Drop for Writer {
    /// The versions retired since the last hand-over go to the reclamation
    /// too: readers may still be running them.
    fn drop(&mut self) {
        self.store_held();
        self.hand_over();
    }
}

#[cfg(test)]
mod tests {
    use super::super::new;
    use super::*;
    use crate::op::decode_pass;

    /// A random image: any opcode (ARITH with CONT slots included), size, count,
    /// anchor and operands. Any image is safe to decode.
    fn image(x: &mut u64) -> Instruction {
        let mut w = [0u32; 8];
        for v in w.iter_mut() {
            *x ^= *x << 13;
            *x ^= *x >> 7;
            *x ^= *x << 17;
            *v = *x as u32;
        }
        // Mostly valid opcodes, and short ARITH continuations.
        let op = 1 + (w[0] >> 26) % 12;
        w[0] = (w[0] & 0x03ff_ffff) | op << 26;
        if op == 8 {
            w[0] = (w[0] & !0x7ff) | (w[1] % 3);
        }
        Instruction(w)
    }

    /// The published version of `id`, as readers see it.
    fn published(w: &Writer, id: PassId) -> (Vec<crate::op::Step>, Vec<u32>) {
        let g = epoch::pin();
        let n = w.shared.slots[id.index()].load(Ordering::Acquire, &g);
        // SAFETY: the test holds the only writer, so the node stays published.
        let n = unsafe { n.as_ref() }.expect("published");
        (n.steps.to_vec(), n.pool.to_vec())
    }

    #[test]
    fn a_duplicate_takes_its_parents_steps_up_to_its_first_rewrite() {
        let (mut w, _r) = new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let rounds = if cfg!(miri) { 40 } else { 1_000 };
        let mut checked = 0;
        for round in 0..rounds {
            let parent = w.new_pass().expect("slot");
            for k in 0..10 {
                w.select_op(parent, k, image(&mut x)).expect("append");
            }
            w.publish(parent).expect("draft");
            // A random image may be a GROUP, which no pass may be duplicated
            // over.
            let Ok(child) = w.dup_pass(parent) else {
                w.del_pass(parent).expect("there");
                continue;
            };
            // Every third round the parent changes between the duplication
            // and the child's first publish: that step must not be lent.
            let moved = round % 3 == 0;
            if moved {
                let at = (x % 10) as usize;
                w.select_op(parent, at, image(&mut x)).expect("in place");
            }
            let at = (x >> 8) as usize % 10;
            w.select_op(child, at, image(&mut x)).expect("in place");
            let before = w.stats();
            w.publish(child).expect("draft");
            let insns = w.instructions(child).expect("pass").to_vec();
            let mut pool = Vec::new();
            let full = decode_pass(&insns, &mut pool);
            assert_eq!(published(&w, child), (full, pool), "round {round}");
            if !moved {
                let decoded = w.stats().decoded - before.decoded;
                let first = (0..at)
                    .find(|&k| k + insns[k].arith_ext() >= at)
                    .unwrap_or(at);
                assert!(
                    decoded <= (insns.len() - first) as u64,
                    "{decoded} steps for a child rewritten at {at}"
                );
            }
            checked += 1;
            w.del_pass(child).expect("there");
            w.del_pass(parent).expect("there");
        }
        // Random images hold a GROUP often enough that about 4 in 10 rounds
        // get to the check.
        assert!(checked > rounds / 5, "{checked} of {rounds}");
    }

    #[test]
    fn an_edit_decodes_from_its_instruction_on_and_matches_a_full_decode() {
        let (mut w, _r) = new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let id = w.new_pass().expect("slot");
        for k in 0..12 {
            w.select_op(id, k, image(&mut x)).expect("append");
        }
        w.publish(id).expect("draft");
        let steps = if cfg!(miri) { 200 } else { 5_000 };
        for _ in 0..steps {
            let len = w.instructions(id).expect("pass").len();
            let at = (x % len as u64) as usize;
            let before = w.stats();
            match x % 7 {
                0 => w.poke_inst(id, at, (x >> 8) as usize % 8, (x >> 16) as u32),
                1 if len > 4 => w.del_inst(id, at),
                2 if len < MAX_INSNS => w.select_op(id, len, image(&mut x)),
                3 => w.add_param(id, at, (x >> 20) as u32).or(Ok(())),
                4 => {
                    let v = w.instructions(id).expect("pass")[at];
                    let first = v
                        .operand_slots()
                        .map(|(f, s, n, _)| (n > 0).then(|| v.operand(f, s, 0)));
                    match first.flatten() {
                        Some(value) => w.del_param(id, at, value),
                        None => Ok(()),
                    }
                }
                _ => w.select_op(id, at, image(&mut x)),
            }
            .expect("edit");
            image(&mut x);
            let insns = w.instructions(id).expect("pass").to_vec();
            let mut pool = Vec::new();
            let full = decode_pass(&insns, &mut pool);
            assert_eq!(published(&w, id), (full, pool), "after an edit at {at}");
            // Only the steps from the edit on (or an ARITH reaching it) decode again.
            let decoded = w.stats().decoded - before.decoded;
            let first = (0..at)
                .find(|&k| k + insns[k].arith_ext() >= at)
                .unwrap_or(at);
            assert!(
                decoded <= (insns.len().max(at) - first) as u64,
                "{decoded} steps for an edit at {at}"
            );
        }
    }

    #[test]
    fn add_param_on_the_last_instruction_decodes_one_step() {
        let (mut w, _r) = new();
        let id = w.new_pass().expect("slot");
        let mut x = 0x1234_5678_9abc_def1u64;
        for k in 0..4 {
            let mut i = image(&mut x);
            // Not an ARITH: its continuation would reach the last instruction.
            if i.decode().opcode == Some(Opcode::Arith) {
                i.0[0] = (i.0[0] & 0x03ff_ffff) | 1 << 26;
            }
            w.select_op(id, k, i).expect("append");
        }
        let port =
            netsift_isa::insn::build::eq(0, 36, netsift_isa::insn::Size::B2, u32::MAX, &[21])
                .expect("an EQ");
        w.select_op(id, 4, port).expect("append");
        w.publish(id).expect("draft");
        let before = w.stats();
        w.add_param(id, 4, 2121).expect("room");
        let after = w.stats();
        assert_eq!(after.versions - before.versions, 1);
        assert_eq!(after.decoded - before.decoded, 1);
    }

    /// What readers see of `id` against what its instructions decode to now.
    fn current(w: &Writer, id: PassId) -> bool {
        let insns = w.instructions(id).expect("pass").to_vec();
        let mut pool = Vec::new();
        let full = decode_pass(&insns, &mut pool);
        published(w, id) == (full, pool)
    }

    #[test]
    fn held_edits_reach_readers_when_released_and_not_before() {
        let (mut w, _r) = new();
        let mut x = 0x0dd_ba11_cafe_f00du64;
        let mut ids = Vec::new();
        for _ in 0..3 {
            let id = w.new_pass().expect("slot");
            for k in 0..6 {
                w.select_op(id, k, image(&mut x)).expect("append");
            }
            w.publish(id).expect("draft");
            ids.push(id);
        }
        let rounds = if cfg!(miri) { 30 } else { 2_000 };
        for round in 0..rounds {
            let seen: Vec<_> = ids.iter().map(|&id| published(&w, id)).collect();
            w.hold();
            // Edits of distinct passes wait; what readers see does not move.
            let a = ids[round % 3];
            let b = ids[(round + 1) % 3];
            let at = (x % 6) as usize;
            w.select_op(a, at, image(&mut x)).expect("in place");
            w.poke_inst(b, at, 1, x as u32).expect("in place");
            for (k, &id) in ids.iter().enumerate() {
                assert_eq!(published(&w, id), seen[k], "round {round}: held");
            }
            // A second edit of a held pass stores what is held first, then
            // waits itself.
            if round % 4 == 0 {
                let after_first = {
                    let insns = w.instructions(a).expect("pass").to_vec();
                    let mut pool = Vec::new();
                    (decode_pass(&insns, &mut pool), pool)
                };
                w.select_op(a, (at + 1) % 6, image(&mut x))
                    .expect("in place");
                assert_eq!(published(&w, a), after_first, "round {round}: flushed");
                assert!(current(&w, b), "round {round}: flushed");
            }
            // A deletion cannot wait: it stores what is held before it.
            if round % 5 == 0 {
                let c = ids[(round + 2) % 3];
                let gone = ids.iter().position(|&id| id == c).expect("there");
                w.del_pass(c).expect("there");
                assert!(current(&w, a) && current(&w, b), "round {round}: deleted");
                let id = w.new_pass().expect("slot");
                for k in 0..6 {
                    w.select_op(id, k, image(&mut x)).expect("append");
                }
                w.publish(id).expect("draft");
                ids[gone] = id;
            }
            w.release();
            for &id in &ids {
                assert!(current(&w, id), "round {round}: released");
            }
        }
        // Dropped with versions held: they are stored, then freed with the set.
        w.hold();
        w.select_op(ids[0], 0, image(&mut x)).expect("in place");
        drop(w);
    }

    #[test]
    fn a_versions_buffers_share_no_line_with_another_block() {
        let (mut w, _r) = new();
        let mut x = 0x5151_7a7a_0b0b_c3c3u64;
        let mut ids = Vec::new();
        for n in 1..12 {
            let id = w.new_pass().expect("slot");
            for k in 0..n {
                w.select_op(id, k, image(&mut x)).expect("append");
            }
            w.publish(id).expect("draft");
            ids.push(id);
        }
        for round in 0..if cfg!(miri) { 20 } else { 500 } {
            let id = ids[round % ids.len()];
            let len = w.instructions(id).expect("pass").len();
            w.select_op(id, (x % len as u64) as usize, image(&mut x))
                .expect("in place");
            let g = epoch::pin();
            let n = w.shared.slots[id.index()].load(Ordering::Acquire, &g);
            // SAFETY: the test holds the only writer, so the node stays published.
            let n = unsafe { n.as_ref() }.expect("published");
            for (at, bytes) in [
                (
                    n.steps.as_ptr() as usize,
                    n.steps.capacity() * size_of::<crate::op::Step>(),
                ),
                (n.pool.as_ptr() as usize, n.pool.capacity() * 4),
            ] {
                assert_eq!(at % super::super::LINE, 0, "round {round}: starts mid-line");
                assert!(bytes > 0, "round {round}: unallocated");
                // Whole lines, but for the last step's padding: a step does
                // not divide a line.
                let slack = bytes.next_multiple_of(super::super::LINE) - bytes;
                assert!(
                    slack < size_of::<crate::op::Step>(),
                    "round {round}: {bytes} bytes"
                );
            }
        }
    }
}
