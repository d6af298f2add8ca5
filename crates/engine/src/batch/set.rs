//! SET over lanes: a block list (`host A or host B or …` of hundreds of thousands of
//! hosts, the FTP follower's flows) looked up for every lane of a batch.
//!
//! The fields load lane-wise through the same loaders as the other tests (length
//! guard, per-lane faults), then each lane's key is probed in the set's key table.
//! Exact, faults included: per lane, the steps come in [`Op::test`]'s order (field A's
//! anchor and address, field B's, the first pair's loads, the lookup, then the second
//! pair's loads only where the first pair's key is not in the table). Only SETs whose
//! table exists take this form (`Form::new`); for a missing table the per-packet
//! order decides between a fault and an invalid image, and they run per lane.
//!
//! [`Op::test`]: crate::op::Op::test

use super::walk::Run;
use super::{Mask, LANES};
use crate::op::Op;
use netsift_isa::Size;

impl Run<'_> {
    /// The lanes of `eval` where SET `op` is true (after negation `neg`).
    pub(super) fn set(&mut self, op: Op, neg: bool, eval: Mask) -> Mask {
        let Op::Set {
            anchor,
            off,
            size,
            n,
            start,
        } = op
        else {
            unreachable!("the form gives this only SETs")
        };
        let set = self.set;
        let p = &self.form.pool[start as usize..][..9];
        let (table, has_b, b_anchor, b_off, b_size) = (p[0], p[1] != 0, p[2] as u8, p[3], p[4]);
        let (da, db, ma, mb) = (p[5] as u64, p[6] as u64, p[7], p[8]);
        let Some(table) = set.tables().get(table as usize) else {
            unreachable!("the form gives this only SETs whose table exists")
        };
        let b_size = Size::from_bytes(1 << b_size).unwrap_or(Size::B4);
        // Field A's address, then field B's: an unresolved anchor makes the lane's
        // instruction invalid (false, negated or not), an address past 2^32 faults.
        let mut ready = self.present(anchor, eval);
        self.s.dead |= self.overflows(anchor, off as u64, ready);
        ready &= !self.s.dead;
        if has_b {
            ready = self.present(b_anchor, ready);
            self.s.dead |= self.overflows(b_anchor, b_off as u64, ready);
            ready &= !self.s.dead;
        }
        // The first pair, and the second where the first is not in the table.
        let (done0, hit0) = self.pair(
            table,
            anchor,
            off as u64,
            size,
            ma,
            has_b,
            (b_anchor, b_off as u64, b_size, mb),
            ready,
        );
        let (mut done, mut hit) = (done0, hit0);
        if n == 2 {
            let again = done0 & !hit0;
            let (done1, hit1) = self.pair(
                table,
                anchor,
                off as u64 + da,
                size,
                ma,
                has_b,
                (b_anchor, b_off as u64 + db, b_size, mb),
                again,
            );
            done = (done0 & !again) | done1;
            hit = hit0 | hit1;
        }
        if neg {
            done & !hit
        } else {
            hit
        }
    }

    /// One pair: field A at `anchor + off` and, if `has_b`, field B, for the lanes
    /// `want`; returns the lanes that loaded both (the others faulted and died) and
    /// those whose key is in `table`.
    #[allow(clippy::too_many_arguments)]
    fn pair(
        &mut self,
        table: &netsift_isa::KeyTable,
        anchor: u8,
        off: u64,
        size: Size,
        ma: u32,
        has_b: bool,
        (b_anchor, b_off, b_size, mb): (u8, u64, Size, u32),
        want: Mask,
    ) -> (Mask, Mask) {
        if want == 0 {
            return (0, 0);
        }
        let got_a = self.load_at(anchor, off, size, ma, want);
        let a: [u32; LANES] = self.s.vals;
        let (got, b) = if has_b {
            let g = self.load_at(b_anchor, b_off, b_size, mb, got_a);
            (g, self.s.vals)
        } else {
            (got_a, [0; LANES])
        };
        let mut hit = 0;
        let mut m = got;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let key = (a[l] as u64) << 32 | b[l] as u64;
            hit |= (table.contains(key) as Mask) << l;
        }
        (got, hit)
    }
}
