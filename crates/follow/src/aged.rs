//! [`Aged`]: a hash map that also remembers the order its keys were inserted in,
//! so that eviction can take the oldest entry that may go, in O(log n).
//!
//! Invariant: every key of `map` has exactly one entry in `order`, under the
//! sequence number stored beside its value, and nothing else is in `order`.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

pub(crate) struct Aged<K, V> {
    map: HashMap<K, (u64, V)>,
    order: BTreeMap<u64, K>,
    next: u64,
}

impl<K: Hash + Eq + Clone, V> Aged<K, V> {
    pub(crate) fn new() -> Self {
        Aged {
            map: HashMap::new(),
            order: BTreeMap::new(),
            next: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    pub(crate) fn get(&self, k: &K) -> Option<&V> {
        self.map.get(k).map(|(_, v)| v)
    }

    pub(crate) fn get_mut(&mut self, k: &K) -> Option<&mut V> {
        self.map.get_mut(k).map(|(_, v)| v)
    }

    pub(crate) fn contains(&self, k: &K) -> bool {
        self.map.contains_key(k)
    }

    /// Inserts `k` as the newest entry (a key already there keeps its age).
    pub(crate) fn insert(&mut self, k: K, v: V) {
        if let Some(slot) = self.map.get_mut(&k) {
            slot.1 = v;
            return;
        }
        let seq = self.next;
        self.next += 1;
        self.order.insert(seq, k.clone());
        self.map.insert(k, (seq, v));
    }

    pub(crate) fn remove(&mut self, k: &K) -> Option<V> {
        let (seq, v) = self.map.remove(k)?;
        self.order.remove(&seq);
        Some(v)
    }

    /// The oldest of the first `limit` entries (oldest first) that `may_go`
    /// accepts. The limit bounds the cost when most entries must stay.
    pub(crate) fn oldest(&self, limit: usize, may_go: impl Fn(&K, &V) -> bool) -> Option<K> {
        self.order
            .values()
            .take(limit)
            .find(|k| self.map.get(*k).is_some_and(|(_, v)| may_go(k, v)))
            .cloned()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.map.iter().map(|(k, (_, v))| (k, v))
    }

    /// Keys for which `pick` holds (for sweeps; the caller removes them).
    pub(crate) fn select(&self, pick: impl Fn(&K, &V) -> bool) -> Vec<K> {
        self.iter()
            .filter(|(k, v)| pick(k, v))
            .map(|(k, _)| k.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Aged;

    #[test]
    fn oldest_follows_insertion_order_and_skips_what_must_stay() {
        let mut a = Aged::new();
        for k in 0..5u32 {
            a.insert(k, k * 10);
        }
        // Inserting a key again keeps its age.
        a.insert(0, 1);
        assert_eq!(a.get(&0), Some(&1));
        assert_eq!(a.oldest(usize::MAX, |_, _| true), Some(0));
        assert_eq!(a.oldest(usize::MAX, |k, _| *k >= 3), Some(3));
        // The scan limit bounds the search.
        assert_eq!(a.oldest(2, |k, _| *k >= 3), None);
        assert_eq!(a.remove(&0), Some(1));
        assert_eq!(a.oldest(usize::MAX, |_, _| true), Some(1));
        assert_eq!(a.len(), 4);
        let mut odd = a.select(|k, _| k % 2 == 1);
        odd.sort();
        assert_eq!(odd, [1, 3]);
    }
}
