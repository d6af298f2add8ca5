//! The hash table behind the SET instruction: a set of 64-bit keys that one writer
//! edits while any number of filtering threads look keys up, without locks.
//!
//! Open addressing with linear probing over `AtomicU64` slots. Two key values are
//! reserved as slot markers (`EMPTY`, `TOMB`); those two keys are kept in flags
//! instead, so every 64-bit key can be stored. The writer keeps the table at most half
//! full counting tombstones, so a probe always ends at an empty slot: a lookup is
//! bounded, as every instruction must be. When the bound would be crossed the writer
//! builds a new table and publishes it in one pointer swap (`super::Shared`); that
//! rebuild is O(n) but happens once per doubling, so an insert is O(1) amortised.
//!
//! Races are benign by construction: a slot changes with one atomic store, so a
//! reader sees either the old or the new content, and a lookup that overlaps an
//! insert or a removal answers as if it ran just before or just after it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

const EMPTY: u64 = u64::MAX;
const TOMB: u64 = u64::MAX - 1;
/// The smallest table; a new table has at least this many slots.
const MIN_SLOTS: usize = 16;

pub(crate) struct Table {
    mask: usize,
    seed: u64,
    slots: Box<[AtomicU64]>,
    /// Presence of the two keys that double as slot markers.
    special: [AtomicBool; 2],
    /// Writer-only counters (they live here so that a rebuilt table carries its own).
    counts: Counts,
}

/// The writer's counters, on a cache line of their own: every lookup reads `mask`,
/// `seed` and `slots`, and a counter beside them would pull that line away from
/// each reader at every edit. Only the single writer changes them, so a load and a
/// store do (no read-modify-write).
#[repr(align(64))]
struct Counts {
    live: AtomicU64,
    tombs: AtomicU64,
}

impl Counts {
    fn add(c: &AtomicU64, d: i64) {
        c.store(
            c.load(Ordering::Relaxed).wrapping_add_signed(d),
            Ordering::Relaxed,
        );
    }
}

/// A 64-bit mixer over the seeded key. The seed is random per table, so traffic
/// cannot aim keys at one probe chain.
#[inline]
fn hash(key: u64, seed: u64) -> u64 {
    netsift_isa::table::mix(key ^ seed)
}

impl Table {
    /// An empty table with room for `capacity` keys before it must grow.
    pub(crate) fn with_capacity(capacity: usize, seed: u64) -> Table {
        let slots = (capacity.saturating_mul(2).saturating_add(1))
            .max(MIN_SLOTS)
            .next_power_of_two();
        Table {
            mask: slots - 1,
            seed,
            slots: (0..slots).map(|_| AtomicU64::new(EMPTY)).collect(),
            special: [AtomicBool::new(false), AtomicBool::new(false)],
            counts: Counts {
                live: AtomicU64::new(0),
                tombs: AtomicU64::new(0),
            },
        }
    }

    #[inline]
    pub(crate) fn contains(&self, key: u64) -> bool {
        if key >= TOMB {
            return self.special[(key - TOMB) as usize].load(Ordering::Acquire);
        }
        let mut i = hash(key, self.seed) as usize & self.mask;
        // At most half the slots are used, so this ends at an EMPTY slot long before
        // the bound; the bound makes termination independent of that invariant.
        for _ in 0..=self.mask {
            let v = self.slots[i].load(Ordering::Acquire);
            if v == key {
                return true;
            }
            if v == EMPTY {
                return false;
            }
            i = (i + 1) & self.mask;
        }
        false
    }

    pub(crate) fn len(&self) -> usize {
        let special = self
            .special
            .iter()
            .filter(|f| f.load(Ordering::Relaxed))
            .count();
        self.counts.live.load(Ordering::Relaxed) as usize + special
    }

    /// Whether one more insert would break the half-full bound.
    pub(crate) fn needs_rebuild(&self) -> bool {
        let used =
            self.counts.live.load(Ordering::Relaxed) + self.counts.tombs.load(Ordering::Relaxed);
        (used as usize + 1) * 2 > self.mask + 1
    }

    /// A new table holding the same keys, sized for them plus room to grow, with no
    /// tombstones. Writer only.
    pub(crate) fn rebuilt(&self) -> Table {
        let live = self.counts.live.load(Ordering::Relaxed) as usize;
        let t = Table::with_capacity((live + 1) * 2, self.seed);
        for s in self.slots.iter() {
            let v = s.load(Ordering::Relaxed);
            if v < TOMB {
                t.insert(v);
            }
        }
        for (i, f) in self.special.iter().enumerate() {
            t.special[i].store(f.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        t
    }

    /// Adds `key`; false if it was there. Writer only, and only when
    /// [`Self::needs_rebuild`] is false.
    pub(crate) fn insert(&self, key: u64) -> bool {
        if key >= TOMB {
            return !self.special[(key - TOMB) as usize].swap(true, Ordering::AcqRel);
        }
        let mut i = hash(key, self.seed) as usize & self.mask;
        let mut free = None;
        for _ in 0..=self.mask {
            let v = self.slots[i].load(Ordering::Relaxed);
            if v == key {
                return false;
            }
            if v == TOMB && free.is_none() {
                free = Some(i);
            }
            if v == EMPTY {
                let at = match free {
                    Some(t) => {
                        Counts::add(&self.counts.tombs, -1);
                        t
                    }
                    None => i,
                };
                self.slots[at].store(key, Ordering::Release);
                Counts::add(&self.counts.live, 1);
                return true;
            }
            i = (i + 1) & self.mask;
        }
        unreachable!("the writer keeps the table at most half full")
    }

    /// Removes `key`; false if it was not there. Writer only.
    pub(crate) fn remove(&self, key: u64) -> bool {
        if key >= TOMB {
            return self.special[(key - TOMB) as usize].swap(false, Ordering::AcqRel);
        }
        let mut i = hash(key, self.seed) as usize & self.mask;
        for _ in 0..=self.mask {
            let v = self.slots[i].load(Ordering::Relaxed);
            if v == key {
                // A tombstone, not EMPTY: keys further along this probe chain must
                // stay reachable.
                self.slots[i].store(TOMB, Ordering::Release);
                Counts::add(&self.counts.live, -1);
                Counts::add(&self.counts.tombs, 1);
                return true;
            }
            if v == EMPTY {
                return false;
            }
            i = (i + 1) & self.mask;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn matches_a_reference_set_through_growth_and_tombstones() {
        let mut t = Table::with_capacity(1, 0x1234);
        let mut reference = HashSet::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        // Under Miri a few thousand steps still reach growth and tombstones.
        let steps = if cfg!(miri) { 3_000 } else { 50_000u64 };
        for step in 0..steps {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // A small key space so that removals hit, plus the two marker keys.
            let key = match x % 97 {
                0 => EMPTY,
                1 => TOMB,
                _ => x % 3000,
            };
            if step % 3 == 2 {
                assert_eq!(t.remove(key), reference.remove(&key));
            } else {
                if t.needs_rebuild() {
                    t = t.rebuilt();
                }
                assert_eq!(t.insert(key), reference.insert(key));
            }
            assert_eq!(t.len(), reference.len());
        }
        for k in 0..3000 {
            assert_eq!(t.contains(k), reference.contains(&k), "key {k}");
        }
        assert_eq!(t.contains(EMPTY), reference.contains(&EMPTY));
        assert_eq!(t.contains(TOMB), reference.contains(&TOMB));
    }
}
