//! Static key tables: the sets a SET instruction of a static [`PassSet`] looks keys up
//! in (`crate::PassSet::add_table`).
//!
//! A table is built once and never edited, so it is an open-addressing hash set with
//! linear probing at most half full: a lookup hashes once and reads, on average, about
//! 1.5 slots of one cache line, whatever the size (a sorted array would cost ~17
//! dependent, cache-missing probes at 100,000 keys). The hash is fixed, not seeded, so
//! that compiling the same text always gives the same (equal) pass set. Traffic cannot
//! lengthen a probe: chains are made by the table's own keys, fixed at compile time,
//! and at half load the longest is short.
//!
//! [`PassSet`]: crate::PassSet

/// The key a SET instruction builds from its fields: `(a & mA) << 32 | (b & mB)`.
#[inline]
pub fn set_key(a: u32, b: u32) -> u64 {
    (a as u64) << 32 | b as u64
}

/// Marks an empty slot. The key of the same value is kept in a flag instead.
const EMPTY: u64 = u64::MAX;

/// A set of 64-bit keys for SET lookups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyTable {
    /// The keys, sorted and without repeats: the listing, equality and export read them.
    keys: Vec<u64>,
    /// `slots.len()` is a power of two at least twice the number of keys.
    slots: Vec<u64>,
    /// Whether the key `EMPTY` is in the set.
    has_empty_key: bool,
}

/// A 64-bit mixer (MurmurHash3's finaliser): both halves of the key reach every bit
/// of the slot index, since keys usually differ only in field A's low bits. The live
/// tables (`engine::live`) mix a seeded key with it.
#[inline]
pub fn mix(key: u64) -> u64 {
    let mut h = key;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

impl KeyTable {
    /// A table of `keys` (in any order, repeats allowed). O(n log n) for the sort.
    pub fn new(keys: impl IntoIterator<Item = u64>) -> KeyTable {
        let mut keys: Vec<u64> = keys.into_iter().collect();
        keys.sort_unstable();
        keys.dedup();
        let n_slots = (keys.len() * 2).max(8).next_power_of_two();
        let mask = n_slots - 1;
        let mut slots = vec![EMPTY; n_slots];
        let mut has_empty_key = false;
        for &k in &keys {
            if k == EMPTY {
                has_empty_key = true;
                continue;
            }
            let mut i = mix(k) as usize & mask;
            while slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            slots[i] = k;
        }
        KeyTable {
            keys,
            slots,
            has_empty_key,
        }
    }

    /// Whether `key` is in the set. Bounded: the table is at most half full, so the
    /// probe ends at an empty slot.
    #[inline]
    pub fn contains(&self, key: u64) -> bool {
        if key == EMPTY {
            return self.has_empty_key;
        }
        let mask = self.slots.len() - 1;
        let mut i = mix(key) as usize & mask;
        loop {
            let v = self.slots[i];
            if v == key {
                return true;
            }
            if v == EMPTY {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// The keys, sorted.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }
    /// How many distinct keys it holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }
    /// Whether it holds no key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_exactly_its_keys() {
        // Keys as SET builds them (field A only), plus the slot marker's value and 0.
        let keys: Vec<u64> = (0..5000u32)
            .map(|i| set_key(0x0a00_0000 + 7 * i, 0))
            .chain([EMPTY, 0])
            .collect();
        let t = KeyTable::new(keys.iter().copied().chain(keys.iter().copied()));
        assert_eq!(t.len(), keys.len());
        assert!(t.keys().windows(2).all(|w| w[0] < w[1]));
        for &k in &keys {
            assert!(t.contains(k), "{k:#x}");
        }
        let absent = (0..20_000u32).map(|i| set_key(0x0a00_0000 + 7 * i + 1, 0));
        assert!(absent.chain([EMPTY - 1, 1]).all(|k| !t.contains(k)));
        assert!(t.slots.len() >= 2 * t.len());
    }

    #[test]
    fn empty_table_finds_nothing() {
        let t = KeyTable::new([]);
        assert!(t.is_empty());
        assert!(!t.contains(0) && !t.contains(EMPTY));
    }
}
