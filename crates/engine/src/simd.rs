//! Compare kernels over a batch of lanes: one packet per lane, one 32-bit field value
//! per packet, tested against an instruction's operands.
//!
//! The Swift papers packed up to 7 values into one instruction ("SIMD operands") and
//! named real vector units as future work. Here they are used across *packets*: the
//! batch engine ([`crate::batch`]) loads one field for up to [`LANES`] packets, then
//! one kernel call compares all of them with every operand, eight lanes per AVX2
//! compare (four with SSE2), and returns a bitmask of lanes. A bitmask is also how
//! the engine tracks which packets are still running a pass (the thesis's "bitmask
//! program counter", section IV.iii), so no per-packet branch decides anything.
//!
//! The kernel is chosen once at run time ([`Simd::detect`]); the scalar form is the
//! reference and the tests check every form the CPU has against it (memchr's
//! pattern: explicit `std::arch` code behind runtime detection, with a portable
//! fallback).

/// Packets handled together by the batch engine. 64 runs a fifth fewer
/// instructions per packet (the batch's fixed costs spread wider) but measured
/// slower on traces larger than the caches (docs/BENCHMARKS.md): 32 packets' worth
/// of loads and prefetches fit the CPU's miss buffers better.
pub const LANES: usize = 32;

/// One bit per lane (bit `i` is lane `i`).
pub type Mask = u32;

/// Which compare kernels the batch engine runs: a token only run-time detection
/// creates (or the portable scalar form, which every CPU runs). Its methods are safe
/// to call because holding one proves the CPU has its instructions; safe code
/// cannot make an AVX2 token on a CPU without AVX2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Simd(Kernel);

/// The implementations. Private: a `Kernel` other than `Scalar` exists only inside
/// a [`Simd`] that [`Simd::detect`] or [`Simd::available`] made after asking the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// Portable loops: the reference, and the only form off x86-64.
    Scalar,
    /// 128-bit vectors (every x86-64 CPU has SSE2).
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// 256-bit vectors, only where the CPU reports AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Simd {
    /// The widest form this CPU runs.
    pub fn detect() -> Simd {
        *Simd::available()
            .last()
            .expect("the scalar form is always available")
    }

    /// The portable scalar form: the reference every other form is tested against.
    pub fn scalar() -> Simd {
        Simd(Kernel::Scalar)
    }

    /// Every form this CPU runs, the scalar reference first and the widest last.
    pub fn available() -> Vec<Simd> {
        #[allow(unused_mut)]
        let mut v = vec![Simd(Kernel::Scalar)];
        #[cfg(target_arch = "x86_64")]
        {
            v.push(Simd(Kernel::Sse2));
            if std::is_x86_feature_detected!("avx2") {
                v.push(Simd(Kernel::Avx2));
            }
        }
        v
    }

    /// The lanes whose value equals one of `ops`.
    #[inline]
    pub(crate) fn eq_any(self, vals: &[u32; LANES], ops: &[u32]) -> Mask {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a `Kernel::Avx2` token is made only after the CPU reported AVX2
            // (`available`), and the type's field is private.
            Kernel::Avx2 => unsafe { x86::eq_any_avx2(vals, ops) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => x86::eq_any_sse2(vals, ops),
            Kernel::Scalar => eq_any_scalar(vals, ops),
        }
    }

    /// The lanes whose value lies in one of the inclusive ranges `ranges`, given as
    /// `lo, hi` pairs (an odd last word is ignored).
    #[inline]
    pub(crate) fn in_ranges(self, vals: &[u32; LANES], ranges: &[u32]) -> Mask {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `eq_any`.
            Kernel::Avx2 => unsafe { x86::in_ranges_avx2(vals, ranges) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => x86::in_ranges_sse2(vals, ranges),
            Kernel::Scalar => in_ranges_scalar(vals, ranges),
        }
    }

    /// The form's name: `scalar`, `sse2` or `avx2`.
    pub fn name(self) -> &'static str {
        match self.0 {
            Kernel::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => "sse2",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => "avx2",
        }
    }
}

fn eq_any_scalar(vals: &[u32; LANES], ops: &[u32]) -> Mask {
    let mut m = 0;
    for (i, &v) in vals.iter().enumerate() {
        m |= (ops.contains(&v) as Mask) << i;
    }
    m
}

fn in_ranges_scalar(vals: &[u32; LANES], ranges: &[u32]) -> Mask {
    let mut m = 0;
    for (i, &v) in vals.iter().enumerate() {
        let hit = ranges.chunks_exact(2).any(|r| r[0] <= v && v <= r[1]);
        m |= (hit as Mask) << i;
    }
    m
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Mask, LANES};
    use std::arch::x86_64::*;

    /// Lane values as vectors of four (unaligned loads from the array).
    #[inline(always)]
    fn load4(vals: &[u32; LANES]) -> [__m128i; LANES / 4] {
        // SAFETY: SSE2 is part of x86-64; each load reads 16 bytes inside `vals`.
        std::array::from_fn(|i| unsafe { _mm_loadu_si128(vals.as_ptr().add(4 * i).cast()) })
    }

    /// The sign bits of each 32-bit element, four lanes per vector.
    #[inline(always)]
    fn mask4(v: &[__m128i; LANES / 4]) -> Mask {
        let mut m = 0;
        for (i, x) in v.iter().enumerate() {
            // SAFETY: SSE2 is part of x86-64.
            m |= (unsafe { _mm_movemask_ps(_mm_castsi128_ps(*x)) } as Mask) << (4 * i);
        }
        m
    }

    pub(super) fn eq_any_sse2(vals: &[u32; LANES], ops: &[u32]) -> Mask {
        let v = load4(vals);
        // SAFETY: SSE2 is part of x86-64.
        let mut acc = [unsafe { _mm_setzero_si128() }; LANES / 4];
        for &o in ops {
            // SAFETY: SSE2 is part of x86-64.
            let b = unsafe { _mm_set1_epi32(o as i32) };
            for (a, x) in acc.iter_mut().zip(&v) {
                // SAFETY: SSE2 is part of x86-64.
                *a = unsafe { _mm_or_si128(*a, _mm_cmpeq_epi32(*x, b)) };
            }
        }
        mask4(&acc)
    }

    pub(super) fn in_ranges_sse2(vals: &[u32; LANES], ranges: &[u32]) -> Mask {
        // SSE2 compares only signed words: flipping the sign bit of both sides turns
        // an unsigned order into the signed one.
        // SAFETY: SSE2 is part of x86-64.
        let bias = unsafe { _mm_set1_epi32(i32::MIN) };
        // SAFETY: SSE2 is part of x86-64.
        let v = load4(vals).map(|x| unsafe { _mm_xor_si128(x, bias) });
        // SAFETY: SSE2 is part of x86-64.
        let mut acc = [unsafe { _mm_setzero_si128() }; LANES / 4];
        for r in ranges.chunks_exact(2) {
            // SAFETY: SSE2 is part of x86-64.
            let lo = unsafe { _mm_set1_epi32((r[0] ^ 0x8000_0000) as i32) };
            // SAFETY: SSE2 is part of x86-64.
            let hi = unsafe { _mm_set1_epi32((r[1] ^ 0x8000_0000) as i32) };
            for (a, x) in acc.iter_mut().zip(&v) {
                // Outside: lo > v or v > hi.
                // SAFETY: SSE2 is part of x86-64.
                let out = unsafe { _mm_or_si128(_mm_cmpgt_epi32(lo, *x), _mm_cmpgt_epi32(*x, hi)) };
                // SAFETY: SSE2 is part of x86-64.
                *a = unsafe { _mm_or_si128(*a, _mm_andnot_si128(out, _mm_set1_epi32(-1))) };
            }
        }
        mask4(&acc)
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn load8(vals: &[u32; LANES]) -> [__m256i; LANES / 8] {
        // SAFETY: each load reads 32 bytes inside `vals`.
        std::array::from_fn(|i| unsafe { _mm256_loadu_si256(vals.as_ptr().add(8 * i).cast()) })
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn mask8(v: &[__m256i; LANES / 8]) -> Mask {
        let mut m = 0;
        for (i, x) in v.iter().enumerate() {
            m |= (_mm256_movemask_ps(_mm256_castsi256_ps(*x)) as u32 as Mask) << (8 * i);
        }
        m
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn eq_any_avx2(vals: &[u32; LANES], ops: &[u32]) -> Mask {
        let v = load8(vals);
        let mut acc = [_mm256_setzero_si256(); LANES / 8];
        for &o in ops {
            let b = _mm256_set1_epi32(o as i32);
            for (a, x) in acc.iter_mut().zip(&v) {
                *a = _mm256_or_si256(*a, _mm256_cmpeq_epi32(*x, b));
            }
        }
        mask8(&acc)
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn in_ranges_avx2(vals: &[u32; LANES], ranges: &[u32]) -> Mask {
        let v = load8(vals);
        let mut acc = [_mm256_setzero_si256(); LANES / 8];
        for r in ranges.chunks_exact(2) {
            let lo = _mm256_set1_epi32(r[0] as i32);
            let hi = _mm256_set1_epi32(r[1] as i32);
            for (a, x) in acc.iter_mut().zip(&v) {
                // Unsigned: v >= lo iff max(v, lo) == v; v <= hi iff min(v, hi) == v.
                let ge = _mm256_cmpeq_epi32(_mm256_max_epu32(*x, lo), *x);
                let le = _mm256_cmpeq_epi32(_mm256_min_epu32(*x, hi), *x);
                *a = _mm256_or_si256(*a, _mm256_and_si256(ge, le));
            }
        }
        mask8(&acc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Values drawn near the operands and the range ends, and the extremes, so
    /// equal and boundary cases are common.
    fn near(pool: Vec<u32>) -> impl Strategy<Value = u32> {
        prop_oneof![
            proptest::sample::select(pool.clone()),
            proptest::sample::select(pool.clone()).prop_map(|v| v.wrapping_add(1)),
            proptest::sample::select(pool).prop_map(|v| v.wrapping_sub(1)),
            Just(0u32),
            Just(u32::MAX),
            Just(0x8000_0000u32),
            any::<u32>(),
        ]
    }

    fn case() -> impl Strategy<Value = ([u32; LANES], Vec<u32>)> {
        proptest::collection::vec(
            prop_oneof![Just(0u32), Just(u32::MAX), Just(0x7fff_ffff), any::<u32>()],
            0..30,
        )
        .prop_flat_map(|ops| {
            let pool = if ops.is_empty() { vec![0] } else { ops.clone() };
            let lanes = proptest::collection::vec(near(pool), LANES)
                .prop_map(|v| <[u32; LANES]>::try_from(v).expect("LANES values"));
            (lanes, Just(ops))
        })
    }

    proptest! {
        #[test]
        fn every_form_agrees_with_scalar((vals, ops) in case()) {
            let want_eq = eq_any_scalar(&vals, &ops);
            let want_in = in_ranges_scalar(&vals, &ops);
            for s in Simd::available() {
                prop_assert_eq!(s.eq_any(&vals, &ops), want_eq, "{} eq_any", s.name());
                prop_assert_eq!(s.in_ranges(&vals, &ops), want_in, "{} in_ranges", s.name());
            }
        }
    }

    #[test]
    fn scalar_reference_is_right() {
        let mut vals = [7u32; LANES];
        vals[3] = 80;
        vals[31] = u32::MAX;
        assert_eq!(eq_any_scalar(&vals, &[80, u32::MAX]), 1 << 3 | 1 << 31);
        assert_eq!(in_ranges_scalar(&vals, &[8, 80]), 1 << 3);
        assert_eq!(in_ranges_scalar(&vals, &[0, 7, 9]), !(1 << 3 | 1 << 31));
        assert_eq!(eq_any_scalar(&vals, &[]), 0);
    }

    #[test]
    fn detection_is_consistent() {
        let all = Simd::available();
        assert!(all.contains(&Simd::detect()));
        assert_eq!(all[0], Simd::scalar());
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            all.iter().any(|s| s.name() == "avx2"),
            std::is_x86_feature_detected!("avx2")
        );
    }
}
