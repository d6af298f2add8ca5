//! Runs of tests on fields at fixed offsets ([`Kind::Direct`](super::form::Kind)),
//! loaded together.
//!
//! A filter usually opens with a few such tests (EtherType, IP protocol, fragment
//! offset, addresses). One at a time, each walks every lane to load its field; here,
//! when every packet of the batch holds all the fields, one walk loads them all, and
//! each lane's packet pointer is read once instead of once per test.
//!
//! Exact: with every field inside every packet nothing can fault, and a run of tests
//! is their conjunction, so evaluating all of them for every lane gives the verdicts
//! of evaluating them in order and stopping at the first that fails. When some
//! packet is too short, the tests run one at a time as written, so faults fall on
//! the same test as in the per-packet engine.

use super::form::{Direct, DIRECT_MAX};
use super::walk::Run;
use super::{Mask, LANES};

impl Run<'_> {
    /// Run `i` of the form's direct runs for the lanes `eval`: those that pass all
    /// its tests.
    pub(super) fn direct(&mut self, i: usize, eval: Mask) -> Mask {
        let d = &self.form.directs[i];
        if d.end > self.lanes.min_len as u64 {
            let mut live = eval;
            for &(op, neg) in &d.tests[..d.n as usize] {
                if live == 0 {
                    break;
                }
                live &= self.fast(op, neg, live) & !self.s.dead;
            }
            return live;
        }
        match d.n {
            2 => self.direct_k::<2>(d, eval),
            3 => self.direct_k::<3>(d, eval),
            _ => self.direct_k::<4>(d, eval),
        }
    }

    /// The first `K` tests of `d` under the length guard (`d.end <= min_len`).
    fn direct_k<const K: usize>(&mut self, d: &Direct, eval: Mask) -> Mask {
        let mut off = [0usize; K];
        let mut mask = [0u32; K];
        for k in 0..K {
            off[k] = d.words[k].0 as usize;
            mask[k] = d.words[k].1;
        }
        // SAFETY: `direct` calls this only when `d.end`, the end of the last word
        // any test reads, is at most the batch's shortest packet length.
        unsafe { direct_walk::<K>(self.lanes.data, off, mask, &mut self.s.direct) };
        let pool = &self.form.pool;
        let mut hit = eval;
        for k in 0..K {
            let (start, n) = d.words[k].2;
            let h = self.simd.eq_any(
                &self.s.direct[k],
                &pool[start as usize..(start + n) as usize],
            );
            hit &= if d.tests[k].1 { !h } else { h };
        }
        hit
    }
}

/// Loads the `K` fields (4-byte words at `off`, masked) of every lane into `out`.
///
/// Not inlined: inside the walker's large functions the loop's values spill to the
/// stack. A full batch gets a loop of known length.
///
/// # Safety
/// Every packet of `data` holds `off[k] + 4` bytes for every `k` (the length
/// guard, checked by `Run::direct`).
#[inline(never)]
unsafe fn direct_walk<const K: usize>(
    data: &[&[u8]],
    off: [usize; K],
    mask: [u32; K],
    out: &mut [[u32; LANES]; DIRECT_MAX],
) {
    let mut walk = |data: &[&[u8]]| {
        for (l, d) in data.iter().enumerate().take(LANES) {
            let base = d.as_ptr();
            debug_assert!(off.iter().all(|&o| o + 4 <= d.len()));
            for k in 0..K {
                // SAFETY: `off[k] + 4 <= d.len()`, the caller's contract.
                let w = unsafe { base.add(off[k]).cast::<[u8; 4]>().read_unaligned() };
                out[k][l] = u32::from_be_bytes(w) & mask[k];
            }
        }
    };
    match <&[&[u8]; LANES]>::try_from(data) {
        Ok(full) => walk(&full[..]),
        Err(_) => walk(data),
    }
}
