//! One cheap hasher for the optimiser model's internal maps (`opt/dominators.rs` and
//! `opt/rejects.rs` key them by test keys that are hashes already, `opt/to_tree.rs` by
//! block). They are looked up on every step of every pass, and SipHash's resistance
//! to chosen keys buys nothing for keys the compiler makes itself.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// One multiply per word written.
#[derive(Default)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u64(&mut self, n: u64) {
        // Fold the well-mixed high half onto the low bits the table indexes by (an
        // address's lowest bits are always zero).
        let h = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 32);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
