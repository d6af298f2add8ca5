//! Lane-wise instructions: anchors, loads and compares for every lane at once.

use super::form::NotIn;
use super::walk::Run;
use super::{Mask, LANES};
use crate::compiled::Op;
use crate::eval::{apply_rule, image_insn, load, Fault};
use crate::scratch::NO_ANCHOR;
use netsift_isa::insn::Size;
use netsift_isa::AnchorRule;

/// The set lanes of `m`, lowest first.
#[inline(always)]
fn bits(mut m: Mask) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

/// The field at `at`, or `None` past the captured bytes: the per-packet `load`,
/// for an address that may not fit 32 bits.
#[inline(always)]
fn read(d: &[u8], at: u64, size: Size) -> Option<u32> {
    load(d, u32::try_from(at).ok()?, size).ok()
}

impl Run<'_> {
    /// A decoded EQ/MEQ/EQ2/RANGE/LEN over the lanes `eval`: the lanes where it is
    /// true (after negation). Lanes whose anchor does not resolve are false whatever
    /// the negation; lanes whose load faults die.
    pub(super) fn fast(&mut self, op: Op, neg: bool, eval: Mask) -> Mask {
        let pool = &self.c.batch_form().pool;
        let (valid, hit) = match op {
            Op::Eq {
                anchor,
                off,
                size,
                mask,
                start,
                n,
                ..
            } => {
                let got = self.load(anchor, off as u64, size, mask, eval);
                let ops = &pool[start as usize..(start + n) as usize];
                (got, self.simd.eq_any(&self.s.vals, ops) & got)
            }
            Op::Eq2 {
                anchor,
                off,
                size,
                mask,
                delta,
                both,
                start,
                n,
                ..
            } => {
                let ops = &pool[start as usize..(start + n) as usize];
                let got1 = self.load_first(anchor, off, delta, size, mask, eval);
                let hit1 = self.simd.eq_any(&self.s.vals, ops) & got1;
                // The second field decides where the first did not.
                let second = got1 & if both { hit1 } else { !hit1 };
                let got2 = self.load_at(anchor, off as u64 + delta as u64, size, mask, second);
                let hit2 = self.simd.eq_any(&self.s.vals, ops) & got2;
                let decided = got1 & !second;
                (decided | got2, (hit1 & decided) | hit2)
            }
            Op::Range {
                anchor,
                off,
                size,
                mask,
                start,
                n,
            } => {
                let got = self.load(anchor, off as u64, size, mask, eval);
                let r = &pool[start as usize..(start + 2 * n) as usize];
                (got, self.simd.in_ranges(&self.s.vals, r) & got)
            }
            Op::Len { start, n } => {
                let r = &pool[start as usize..(start + 2 * n) as usize];
                (eval, self.simd.in_ranges(&self.s.wire, r) & eval)
            }
            Op::Image => unreachable!("the batch form keeps images as Kind::Image"),
        };
        if neg {
            valid & !hit
        } else {
            hit
        }
    }

    /// A fused run of negated tests on one field ([`super::form::Kind::NotIn`]).
    pub(super) fn not_in(&mut self, f: NotIn, eval: Mask) -> Mask {
        let NotIn {
            anchor,
            off,
            size,
            mask,
            second,
            first,
            all,
        } = f;
        let pool = &self.c.batch_form().pool;
        let set = |(s, n): (u32, u32)| &pool[s as usize..(s + n) as usize];
        let Some(delta) = second else {
            let got = self.load(anchor, off as u64, size, mask, eval);
            return got & !self.simd.eq_any(&self.s.vals, set(all));
        };
        let got1 = self.load_first(anchor, off, delta, size, mask, eval);
        // The second field is loaded wherever the first is not in the *first* set,
        // even if a later set holds it: the unfused run loads it there.
        let need2 = got1 & !self.simd.eq_any(&self.s.vals, set(first));
        let out1 = got1 & !self.simd.eq_any(&self.s.vals, set(all));
        let got2 = self.load_at(anchor, off as u64 + delta as u64, size, mask, need2);
        got2 & out1 & !self.simd.eq_any(&self.s.vals, set(all))
    }

    /// Loads the first field of a two-field test (EQ2, a fused EQ2 run) for the
    /// lanes of `eval`. The per-packet engine computes both addresses before it
    /// loads, so an overflow of the second faults first.
    fn load_first(
        &mut self,
        anchor: u8,
        off: u32,
        delta: u32,
        size: Size,
        mask: u32,
        eval: Mask,
    ) -> Mask {
        let present = self.present(anchor, eval);
        let over = self.overflows(anchor, off as u64 + delta as u64, present);
        self.s.dead |= over;
        self.load_at(anchor, off as u64, size, mask, present & !over)
    }

    /// The lanes of `present` where anchor `a` + `add` leaves 32 bits (the
    /// per-packet engine faults on that before loading). Branch-free over all lanes.
    #[inline]
    fn overflows(&self, a: u8, add: u64, present: Mask) -> Mask {
        if a == 0 {
            // Anchor 0 is 0, and an offset plus a delta stays far below 2^32.
            return 0;
        }
        let Ok(add) = u32::try_from(add) else {
            return present;
        };
        let lim = u32::MAX - add;
        let mut over = 0;
        for (l, &b) in self.s.anchor_val[a as usize].iter().enumerate() {
            over |= ((b > lim) as Mask) << l;
        }
        over & present
    }

    /// Loads `field & mask` at anchor + `off` into `vals` for the lanes of `eval`
    /// whose anchor resolves; returns the lanes loaded.
    #[inline]
    fn load(&mut self, anchor: u8, off: u64, size: Size, mask: u32, eval: Mask) -> Mask {
        let present = self.present(anchor, eval);
        self.load_at(anchor, off, size, mask, present)
    }

    /// Loads for the lanes `present` (anchor resolved); lanes whose field lies past
    /// their captured bytes die.
    fn load_at(&mut self, anchor: u8, off: u64, size: Size, mask: u32, present: Mask) -> Mask {
        if present == 0 {
            return 0;
        }
        let data = self.lanes.data;
        if anchor == 0 && off + size.bytes() as u64 <= self.lanes.min_len as u64 {
            // The length guard holds: the field is inside every packet of the batch,
            // so every lane loads without per-lane bookkeeping.
            // One loop per width, so no lane decides anything.
            let at = off as usize;
            let lanes = self.s.vals.iter_mut().zip(data);
            match size {
                Size::B1 => lanes.for_each(|(v, d)| *v = d.get(at).map_or(0, |&b| b as u32) & mask),
                Size::B2 => lanes.for_each(|(v, d)| {
                    *v = d
                        .get(at..at + 2)
                        .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]) as u32)
                        & mask
                }),
                Size::B4 => lanes.for_each(|(v, d)| {
                    *v = d
                        .get(at..at + 4)
                        .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
                        & mask
                }),
            }
            return present;
        }
        let mut fault = 0;
        let base = &self.s.anchor_val[anchor as usize];
        for l in bits(present) {
            match read(data[l], base[l] as u64 + off, size) {
                Some(v) => self.s.vals[l] = v & mask,
                None => fault |= 1 << l,
            }
        }
        self.s.dead |= fault;
        present & !fault
    }

    /// The lanes of `eval` where anchor `a` resolves, resolving it where needed;
    /// lanes that fault while resolving die.
    fn present(&mut self, a: u8, eval: Mask) -> Mask {
        if a == 0 {
            return eval;
        }
        let a = a as usize;
        let need = eval & !self.s.anchor_ok[a];
        if need != 0 {
            self.resolve(a, need);
        }
        eval & !self.s.dead & !self.s.anchor_none[a]
    }

    /// Resolves anchor `a` for the lanes `need` (none of which has it yet): its
    /// parent first where that is missing, then the rule, lane by lane. The
    /// per-packet engine's `anchor`, with the rule chosen once per batch instead of
    /// once per packet.
    fn resolve(&mut self, a: usize, need: Mask) {
        self.s.anchor_ok[a] |= need;
        self.s.touched |= 1 << a;
        let Some((parent, rule, offset)) = self.c.batch_form().anchors[a] else {
            for l in bits(need) {
                self.s.anchor_val[a][l] = NO_ANCHOR;
            }
            self.s.anchor_none[a] |= need;
            return;
        };
        let missing = need & !self.s.anchor_ok[parent];
        if missing != 0 {
            self.resolve(parent, missing);
        }
        let data = self.lanes.data;
        let mut fault = 0;
        for l in bits(need & !self.s.dead) {
            let pv = self.s.anchor_val[parent][l];
            let v = if pv == NO_ANCHOR {
                Ok(NO_ANCHOR)
            } else if let Some(h) = pv.checked_add(offset) {
                match rule {
                    // The common case (the transport header after IPv4), inline.
                    AnchorRule::Ipv4Payload => match data[l].get(h as usize) {
                        Some(&b) => h
                            .checked_add(4 * (b as u32 & 0x0f))
                            .filter(|&v| v != NO_ANCHOR)
                            .ok_or(Fault),
                        None => Err(Fault),
                    },
                    _ => apply_rule(rule, data[l], h),
                }
            } else {
                Err(Fault)
            };
            match v {
                Ok(v) => {
                    self.s.anchor_val[a][l] = v;
                    self.s.anchor_none[a] |= ((v == NO_ANCHOR) as Mask) << l;
                }
                Err(Fault) => fault |= 1 << l,
            }
        }
        self.s.dead |= fault;
    }

    /// Instruction `k` of pass `idx` from its image, one lane at a time through the
    /// per-packet interpreter, sharing the lane's resolved anchors both ways.
    pub(super) fn image(&mut self, idx: usize, k: usize, eval: Mask) -> Mask {
        let insn = &self.c.pass_set().passes()[idx].instructions()[k];
        let mut hit = 0;
        for l in bits(eval) {
            let sc = &mut self.s.scalar;
            sc.reset_anchors();
            let mut t = self.s.touched;
            while t != 0 {
                let a = t.trailing_zeros() as usize;
                t &= t - 1;
                if self.s.anchor_ok[a] & 1 << l != 0 {
                    sc.anchor_valid |= 1 << a;
                    sc.anchor_val[a] = self.s.anchor_val[a][l];
                }
            }
            let before = sc.anchor_valid;
            let r = image_insn(self.c, sc, self.lanes.data[l], self.s.wire[l], insn);
            let mut new = sc.anchor_valid & !before;
            while new != 0 {
                let a = new.trailing_zeros() as usize;
                new &= new - 1;
                self.s.anchor_ok[a] |= 1 << l;
                self.s.anchor_val[a][l] = sc.anchor_val[a];
                self.s.anchor_none[a] |= ((sc.anchor_val[a] == NO_ANCHOR) as Mask) << l;
                self.s.touched |= 1 << a;
            }
            match r {
                Ok(true) => hit |= 1 << l,
                Ok(false) => {}
                Err(Fault) => self.s.dead |= 1 << l,
            }
        }
        hit
    }
}

const _: () = assert!(LANES <= Mask::BITS as usize);
