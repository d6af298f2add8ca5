//! A SET table in memory shared with the kernel: an open-addressing hash table
//! in a [`Region`], written by user space with plain stores and probed by the
//! generated program, so an insert or a delete costs no system call.
//!
//! # Layout
//!
//! A power of two of 32-byte slots, nothing else (the program is generated for
//! one table, so its size and mask are constants in the code):
//!
//! ```text
//!  word 0    word 1   words 2..6               word 7
//! +---------+--------+------------------------+--------+
//! | version | state  | key (5 × u32)          | value  |
//! +---------+--------+------------------------+--------+
//! ```
//!
//! `state` is [`EMPTY`], [`LIVE`] or [`GONE`] (a tombstone). A key is five
//! 32-bit words (shorter keys are padded with zeros), hashed by [`hash`]; its home
//! slot is the hash's top bits, and it lives within the table's probe length
//! ([`PROBES`] unless [`Table::with_probes`] says fewer) of home (linear
//! probing). An insert that finds no room there (no empty slot or
//! tombstone), or that would make more than half the slots live, is refused with
//! [`Full`]: the owner grows the table into a new region and swaps the program
//! ([`Table::grown`]).
//!
//! Keys are never moved (a reader between a moved key's old and new slots would
//! miss it), so deletes leave tombstones. An insert reuses the first tombstone
//! in its window, and a delete whose next slot is empty clears the run of
//! tombstones it ends; the tombstones that remain lengthen a miss's probe, never
//! beyond [`PROBES`] slots, until a rebuild ([`Table::grown`], or
//! [`Table::rebuilt`] at the same size) and a swap clear them
//! ([`Table::tombstones`] says how many there are).
//!
//! # No torn entries
//!
//! Each slot is a sequence lock. The single writer (`&mut Table`) makes the
//! version odd, writes the state, key and value, and makes the version even
//! again (one higher pair each edit). A reader (the program, or [`lookup`], the
//! reference) reads the version, the state and key, and the version again, and
//! treats a slot whose version was odd, or changed between its two reads, as not
//! holding the key (it goes on probing; a torn slot is never a stop). So an
//! insert takes effect when its last store (the even version) lands, a delete
//! when its first (the odd version) does, and every verdict is the one of the
//! set before or after the edit in flight, never a mix of two keys' words.
//!
//! Why a torn slot may be skipped rather than stop the probe: a slot only turns
//! from empty to live (an insert), and a key lies past a slot only if that slot
//! was occupied when the key went in; deletes leave tombstones, and a tombstone
//! turns back into an empty slot only when the slot after it is empty (so no
//! key's probe passes through it).
//!
//! # Memory ordering
//!
//! User space: the odd version is a relaxed store followed by a release fence
//! (so it is visible before any field store), the fields are relaxed stores,
//! and the even version is a release store (so it is visible after them). On
//! x86-64 (TSO) every store is seen in program order and every load is ordered
//! with the loads before it, so the program's plain loads, in the order the
//! generated code issues them (version, state, key words, version), see a slot's
//! stores in the order they were made; the release fence and stores compile to
//! plain `mov`s there. On weakly ordered CPUs (arm64) the reader's loads may be
//! reordered: a reader there needs its first version load and its field loads to
//! be load-acquire (`BPF_LOAD_ACQ`, kernel 6.15), which this generator does not
//! emit yet; `Table` is correct as written on x86-64 only and says so in
//! docs/unsafe.md. The version is 32 bits: a reader would mistake a slot
//! rewritten exactly 2^31 times between its two reads for an untouched one,
//! which a read of tens of nanoseconds cannot see.
//!
//! The same store order keeps the kernel's answer a superset of user space's
//! across an edit of both (docs/architecture.md, invariant 3): a widening edit
//! inserts here first and publishes user space's filter after, and a CPU that
//! sees the later store sees the earlier; a narrowing edit unpublishes first and
//! deletes here after. Across growth, the new table holds every key before the
//! program over it is swapped in, and the old one is dropped only after.

use crate::asm::{Alu, Asm, Cond, Label, Width, R0, R1, R10, R2, R3, R4, R5};
use crate::shared::Region;
use crate::sys::Error;
use std::sync::atomic::{fence, AtomicU32, Ordering};

/// Words of a key.
pub const KEY_WORDS: usize = 5;
/// Words of a slot: version, state, key, value.
pub const SLOT_WORDS: usize = 8;
/// Bytes of a slot.
pub const SLOT_BYTES: usize = 4 * SLOT_WORDS;
/// Slots a probe reads at most, by default: every key lives within this many of
/// its home ([`Table::with_probes`] sets another length).
pub const PROBES: usize = 32;
/// The fewest slots a table has.
pub const MIN_SLOTS: usize = 64;
/// A never-used slot: a probe stops here.
pub const EMPTY: u32 = 0;
/// A slot holding a key.
pub const LIVE: u32 = 1;
/// A deleted key's slot (a tombstone): a probe goes past it.
pub const GONE: u32 = 2;

/// A key: five 32-bit words, as the program keeps them on its stack.
pub type Key = [u32; KEY_WORDS];

/// The multiplier of [`hash`] (2^32 / φ).
const MUL: u32 = 0x9e37_79b1;

/// Seeds a rebuild tries at one size before it doubles the table, and sizes it
/// tries before it gives up ([`Table::grown`]).
const SEEDS_PER_SIZE: usize = 2;
const SIZES: usize = 4;

/// A key's hash under `seed`, as the generated probe computes it: the seed,
/// then each word xored in and multiplied by 2^32/φ (32-bit arithmetic).
///
/// Keys come from packets (an announced listener is chosen by whoever sends the
/// announcement), and a fixed hash would let a sender pick keys that share one
/// home until an insert finds no room within the probe: every table has a
/// random seed of its own, compiled into its program, and a rebuild draws a
/// new one, so keys that collide under one seed are spread by the next.
pub fn hash(key: &Key, seed: u32) -> u32 {
    key.iter().fold(seed, |h, &w| (h ^ w).wrapping_mul(MUL))
}

/// The home slot of `key` in a table of `2^bits` slots: the hash's top bits.
fn home(key: &Key, bits: u32, seed: u32) -> usize {
    (hash(key, seed) >> (32 - bits)) as usize
}

/// A random seed for a new table (`getrandom(2)`; the time and address
/// mixed if that fails, which only weakens the defence, never the table).
fn random_seed() -> u32 {
    let mut b = [0u8; 4];
    // SAFETY: `b` is 4 writable bytes, as the call is told.
    let n = unsafe { libc::getrandom(b.as_mut_ptr().cast(), b.len(), 0) };
    if n == 4 {
        return u32::from_ne_bytes(b);
    }
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    (t ^ (t >> 32) ^ (&b as *const _ as u64)) as u32
}

/// An insert refused: no room within [`PROBES`] slots of the key's home, or the
/// table half full. Grow it ([`Table::grown`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Full;

impl std::fmt::Display for Full {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the shared table is full (grow it)")
    }
}

impl std::error::Error for Full {}

/// One slot's words.
fn slot(words: &[AtomicU32], i: usize) -> &[AtomicU32] {
    &words[i * SLOT_WORDS..(i + 1) * SLOT_WORDS]
}

/// A consistent read of a slot (state, key, value), or `None` if it is being
/// written or changed while read: the reader's half of the sequence lock.
fn read(s: &[AtomicU32]) -> Option<(u32, Key, u32)> {
    let v1 = s[0].load(Ordering::Acquire);
    if v1 & 1 != 0 {
        return None;
    }
    let state = s[1].load(Ordering::Relaxed);
    let mut key = [0u32; KEY_WORDS];
    for (k, w) in key.iter_mut().zip(&s[2..2 + KEY_WORDS]) {
        *k = w.load(Ordering::Relaxed);
    }
    let value = s[7].load(Ordering::Relaxed);
    fence(Ordering::Acquire);
    (s[0].load(Ordering::Relaxed) == v1).then_some((state, key, value))
}

/// Rewrites a slot: the writer's half of the sequence lock.
fn write(s: &[AtomicU32], state: u32, key: &Key, value: u32) {
    let v = s[0].load(Ordering::Relaxed);
    s[0].store(v | 1, Ordering::Relaxed);
    fence(Ordering::Release);
    for (w, &k) in s[2..2 + KEY_WORDS].iter().zip(key) {
        w.store(k, Ordering::Relaxed);
    }
    s[7].store(value, Ordering::Relaxed);
    s[1].store(state, Ordering::Relaxed);
    s[0].store((v | 1).wrapping_add(1), Ordering::Release);
}

/// Looks `key` up in the slots `words` (`2^bits` of them) as the generated
/// program does: the reference the program is tested against, and the reader
/// user space uses itself.
pub fn lookup(words: &[AtomicU32], shape: Shape, key: &Key) -> Option<u32> {
    let Shape { bits, probes, seed } = shape;
    let mask = (1usize << bits) - 1;
    let h = home(key, bits, seed);
    for p in 0..probes {
        match read(slot(words, (h + p) & mask)) {
            Some((EMPTY, _, _)) => return None,
            Some((LIVE, k, v)) if k == *key => return Some(v),
            _ => {}
        }
    }
    None
}

/// A table's geometry as a reader needs it: `2^bits` slots, keys within
/// `probes` of home, homes under `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The table has `2^bits` slots.
    pub bits: u32,
    /// Every key lies within this many slots of its home.
    pub probes: usize,
    /// The hash's seed ([`hash`]).
    pub seed: u32,
}

/// What the code generator needs of a table: its map and its shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    fd: i32,
    shape: Shape,
}

impl Probe {
    /// Emits a lookup of the key in the five words at `r10 + key_at`: to `hit`
    /// if the table holds it, falling through if not. Uses r0-r5 (r6-r9 are
    /// left alone). The table's probe length is unrolled (about 25 instructions
    /// a slot), each slot: the version (odd: next), the state (empty: miss; a
    /// tombstone: next), the key's words, the version again (changed: next).
    ///
    /// Unrolled, not a bounded loop: the verifier walks a loop's iterations once
    /// for every state that reaches it, and a program with many paths into its
    /// probes (the follow prologue's announcement parsing) then exceeds its
    /// budget of a million instructions; unrolled slots at distinct places let
    /// it prune a path at the first slot where its state repeats one seen. The
    /// price is size, which a socket filter's owner pays from `optmem_max`: so
    /// a table with many probe sites (operand sets) uses a shorter probe.
    pub fn emit(&self, a: &mut Asm, key_at: i16, hit: Label) {
        let Shape { bits, probes, seed } = self.shape;
        let mask = (1i32 << bits) - 1;
        // The seed's bits (the ALU ops below are 32-bit: the sign extension
        // of the upper half is never read).
        a.mov64_imm(R1, seed as i32);
        for w in 0..KEY_WORDS as i16 {
            a.ldx(Width::W, R2, R10, key_at + 4 * w);
            a.alu32_reg(Alu::Xor, R1, R2);
            a.alu32_imm(Alu::Mul, R1, MUL as i32);
        }
        a.alu32_imm(Alu::Rsh, R1, 32 - bits as i32);
        let miss = a.label();
        for p in 0..probes as i32 {
            let next = a.label();
            a.mov64_reg(R2, R1);
            a.alu32_imm(Alu::Add, R2, p);
            a.alu32_imm(Alu::And, R2, mask);
            a.alu64_imm(Alu::Lsh, R2, 5);
            a.ld_map_value(R0, self.fd, 0);
            a.alu64_reg(Alu::Add, R0, R2);
            a.ldx(Width::W, R3, R0, 0);
            a.jmp_imm(Cond::Set, R3, 1, next);
            a.ldx(Width::W, R4, R0, 4);
            a.jmp_imm(Cond::Eq, R4, EMPTY as i32, miss);
            a.jmp_imm(Cond::Ne, R4, LIVE as i32, next);
            for w in 0..KEY_WORDS as i16 {
                a.ldx(Width::W, R4, R0, 8 + 4 * w);
                a.ldx(Width::W, R5, R10, key_at + 4 * w);
                a.jmp_reg(Cond::Ne, R4, R5, next);
            }
            a.ldx(Width::W, R4, R0, 0);
            a.jmp_reg(Cond::Eq, R4, R3, hit);
            a.bind(next);
        }
        a.bind(miss);
    }
}

/// A versioned open-addressing hash table shared with the kernel. One writer
/// (`&mut self`); any number of readers (programs, [`Table::get`]).
#[derive(Debug)]
pub struct Table {
    region: Region,
    shape: Shape,
    live: usize,
    gone: usize,
}

impl Table {
    /// A table for at least `n` keys (twice as many slots, a power of two, at
    /// least [`MIN_SLOTS`]).
    pub fn with_capacity(n: usize) -> Result<Table, Error> {
        Table::with_probes(n, PROBES)
    }

    /// As [`with_capacity`](Self::with_capacity), every key within `probes`
    /// slots of its home (1 to [`PROBES`]): a shorter probe for a table that
    /// many places of one program look up, kept far below half full.
    pub fn with_probes(n: usize, probes: usize) -> Result<Table, Error> {
        let probes = probes.clamp(1, PROBES);
        let slots = n
            .saturating_mul(2)
            .max(MIN_SLOTS)
            .checked_next_power_of_two()
            .ok_or_else(|| Error::invalid("a shared table that large"))?;
        let region = Region::create(slots * SLOT_BYTES)?;
        Ok(Table {
            region,
            shape: Shape {
                bits: slots.trailing_zeros(),
                probes,
                seed: random_seed(),
            },
            live: 0,
            gone: 0,
        })
    }

    /// Slots.
    pub fn slots(&self) -> usize {
        1 << self.shape.bits
    }

    /// Its geometry and seed.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Keys held.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The region the slots live in.
    pub fn region(&self) -> &Region {
        &self.region
    }

    /// The probe a program over this table is generated with.
    pub fn probe(&self) -> Probe {
        Probe {
            fd: self.region.map().fd(),
            shape: self.shape,
        }
    }

    fn mask(&self) -> usize {
        self.slots() - 1
    }

    /// `key`'s value, read as the program reads it.
    pub fn get(&self, key: &Key) -> Option<u32> {
        lookup(self.region.words(), self.shape, key)
    }

    /// Whether the table holds `key`.
    pub fn contains(&self, key: &Key) -> bool {
        self.get(key).is_some()
    }

    /// Where `key` is, and else the first free slot (empty or tombstone) within
    /// reach of its home. The writer alone changes slots, so it reads them
    /// without the version check.
    fn find(&self, key: &Key) -> (Option<usize>, Option<usize>) {
        let words = self.region.words();
        let h = home(key, self.shape.bits, self.shape.seed);
        let mut free = None;
        for p in 0..self.shape.probes {
            let i = (h + p) & self.mask();
            let s = slot(words, i);
            match s[1].load(Ordering::Relaxed) {
                EMPTY => return (None, free.or(Some(i))),
                LIVE if s[2..2 + KEY_WORDS]
                    .iter()
                    .zip(key)
                    .all(|(w, &k)| w.load(Ordering::Relaxed) == k) =>
                {
                    return (Some(i), None)
                }
                LIVE => {}
                _ => free = free.or(Some(i)),
            }
        }
        (None, free)
    }

    /// Inserts `key` with `value` (or sets the value of a key held): in effect
    /// for the next packet once the call returns. True if the key is new.
    pub fn insert(&mut self, key: &Key, value: u32) -> Result<bool, Full> {
        match self.find(key) {
            (Some(i), _) => {
                write(slot(self.region.words(), i), LIVE, key, value);
                Ok(false)
            }
            (None, Some(i)) => {
                let s = slot(self.region.words(), i);
                let was = s[1].load(Ordering::Relaxed);
                if (self.live + 1) * 2 > self.slots() {
                    return Err(Full);
                }
                write(s, LIVE, key, value);
                self.live += 1;
                if was == GONE {
                    self.gone -= 1;
                }
                Ok(true)
            }
            (None, None) => Err(Full),
        }
    }

    /// Removes `key`: out of effect from the first store on. False if absent.
    pub fn remove(&mut self, key: &Key) -> bool {
        let Some(i) = self.find(key).0 else {
            return false;
        };
        let words = self.region.words();
        write(slot(words, i), GONE, &[0; KEY_WORDS], 0);
        self.live -= 1;
        self.gone += 1;
        // Tombstones before an empty slot lie on no key's probe: empty again.
        let mask = self.mask();
        if slot(words, (i + 1) & mask)[1].load(Ordering::Relaxed) == EMPTY {
            let mut j = i;
            while slot(words, j)[1].load(Ordering::Relaxed) == GONE {
                write(slot(words, j), EMPTY, &[0; KEY_WORDS], 0);
                self.gone -= 1;
                j = j.wrapping_sub(1) & mask;
            }
        }
        true
    }

    /// Tombstones: deleted keys' slots not yet empty again.
    pub fn tombstones(&self) -> usize {
        self.gone
    }

    /// A new table of the same size holding every key of this one and no
    /// tombstone, to swap in as [`grown`](Self::grown)'s is.
    pub fn rebuilt(&self) -> Result<Table, Error> {
        self.resized(self.slots(), &[])
    }

    /// Every key held with its value (the writer's view).
    pub fn entries(&self) -> Vec<(Key, u32)> {
        let words = self.region.words();
        (0..self.slots())
            .filter_map(|i| match read(slot(words, i)) {
                Some((LIVE, k, v)) => Some((k, v)),
                _ => None,
            })
            .collect()
    }

    /// A new table of twice the slots holding every key of this one: the first
    /// half of growth. The owner then loads a program over the new table, swaps
    /// it in (`SO_ATTACH_BPF` replaces a socket's filter in one step), and drops
    /// this one. Edits between `grown` and the swap go to both tables (an insert
    /// to the new one first, a delete to the old one first), so the program in
    /// place always answers a superset of what user space holds.
    pub fn grown(&self) -> Result<Table, Error> {
        self.resized(self.slots() * 2, &[])
    }

    /// The table an insert of `key` refused with [`Full`] needs, holding every
    /// key of this one and `key` (with `value`): twice the slots if this one
    /// is half full, else the same slots under a new seed (the keys near
    /// `key`'s home filled its probe: under another seed they scatter). The
    /// owner swaps it in as [`grown`](Self::grown)'s.
    pub fn grown_for(&self, key: &Key, value: u32) -> Result<Table, Error> {
        let slots = if (self.live + 1) * 2 > self.slots() {
            self.slots() * 2
        } else {
            self.slots()
        };
        self.resized(slots, &[(*key, value)])
    }

    /// A table of `slots` slots with this one's keys and `more`, under a fresh
    /// seed; another seed, then twice the slots, while some key finds no room
    /// ([`SEEDS_PER_SIZE`] seeds at each of [`SIZES`] sizes, then an error: a
    /// bound, so that no set of keys makes the table grow without end).
    fn resized(&self, slots: usize, more: &[(Key, u32)]) -> Result<Table, Error> {
        let mut keys = self.entries();
        keys.extend_from_slice(more);
        for attempt in 0..SEEDS_PER_SIZE * SIZES {
            let n = (slots << (attempt / SEEDS_PER_SIZE)) / 2;
            let mut t = Table::with_probes(n, self.shape.probes)?;
            if keys.iter().all(|(k, v)| t.insert(k, *v).is_ok()) {
                return Ok(t);
            }
        }
        Err(Error::full(format!(
            "no table of up to {} slots holds these {} keys within {} probes",
            slots << (SIZES - 1),
            keys.len(),
            self.shape.probes
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table's logic over plain memory (no kernel needed).
    fn words(slots: usize) -> Vec<AtomicU32> {
        (0..slots * SLOT_WORDS).map(|_| AtomicU32::new(0)).collect()
    }

    #[test]
    fn a_torn_slot_reads_as_absent() {
        let w = words(64);
        let key = [1, 2, 3, 4, 5];
        let shape = Shape {
            bits: 6,
            probes: PROBES,
            seed: 7,
        };
        let h = home(&key, 6, 7);
        write(slot(&w, h), LIVE, &key, 9);
        assert_eq!(lookup(&w, shape, &key), Some(9));
        slot(&w, h)[0].fetch_add(1, Ordering::Relaxed); // a write in flight
        assert_eq!(lookup(&w, shape, &key), None);
    }

    #[test]
    fn the_hash_spreads_ports_and_addresses() {
        // Keys as the follower makes them: one address, consecutive ports.
        let bits = 18;
        let mut used = std::collections::HashSet::new();
        let seed = random_seed();
        for port in 0..50_000u32 {
            used.insert(home(
                &[(6 << 24) | (4 << 16) | port, 0x0a00_0001, 0, 0, 0],
                bits,
                seed,
            ));
        }
        assert!(used.len() > 40_000, "{} homes for 50,000 keys", used.len());
    }
}
