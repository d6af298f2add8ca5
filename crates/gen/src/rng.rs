//! A small seeded pseudo-random generator: SplitMix64 (Steele, Lea, Flood 2014).
//!
//! The workspace has no `rand` dependency and the generators need only a
//! reproducible stream, not cryptographic quality. SplitMix64 passes BigCrush, has
//! a 64-bit state, and — the property that matters here — gives the same numbers on
//! every platform and compiler version. Everything derived from it is integer
//! arithmetic (no `ln`, no floats), so a workload is byte-identical across machines.
//!
//! [`SplitMix64::fork`] derives an independent stream per connection, so adding or
//! removing one connection does not perturb the random choices of the others.

/// The SplitMix64 generator.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function (a strong 64-bit mixer).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SplitMix64 {
    /// A generator seeded with `seed` (any value, including 0, is fine).
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// An independent generator for sub-stream `stream` of this seed; does not
    /// advance `self`.
    pub fn fork(&self, stream: u64) -> Self {
        SplitMix64::new(mix(self.state ^ mix(stream.wrapping_add(GOLDEN))))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        mix(self.state)
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A value in `0..n` (`n > 0`), by Lemire's multiply-shift; the bias (at most
    /// n / 2^64) is irrelevant for workload generation.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A value in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        debug_assert!(lo <= hi);
        lo + self.below(hi - lo + 1)
    }

    /// `true` with probability `percent`/100.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// Fills `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        let mut chunks = buf.chunks_exact_mut(8);
        for c in &mut chunks {
            c.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        let rest = chunks.into_remainder();
        let last = self.next_u64().to_le_bytes();
        rest.copy_from_slice(&last[..rest.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_values() {
        // First outputs of SplitMix64 seeded with 0, as in the reference C code.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn below_and_range_stay_in_bounds() {
        let mut r = SplitMix64::new(7);
        for n in 1..200u64 {
            assert!(r.below(n) < n);
            let v = r.range(n, 2 * n);
            assert!((n..=2 * n).contains(&v));
        }
    }

    #[test]
    fn forks_differ_and_repeat() {
        let r = SplitMix64::new(42);
        let a: Vec<u64> = (0..4).map(|_| r.fork(1).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(r.fork(1).next_u64(), r.fork(2).next_u64());
        let mut buf = [0u8; 13];
        SplitMix64::new(1).fill(&mut buf);
        assert_ne!(buf, [0; 13]);
    }
}
