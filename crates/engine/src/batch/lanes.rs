//! Lane-wise instructions: anchors, loads and compares for every lane at once.

use super::form::NotIn;
use super::walk::Run;
use super::{Mask, LANES};
use crate::op::{apply_rule, Env, Fault, Field, Op};
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

/// Loads the `N`-byte big-endian field at `base[l] + off` (at `off` if not
/// `ANCHORED`: anchor 0), masked, into `vals[l]` for every lane `l` of `data`,
/// without bounds checks.
///
/// # Safety
/// For every lane `l` of `data`, `base[l] + off + N <= data[l].len()` (with
/// `base[l]` taken as 0 when not `ANCHORED`): the batch's length guard.
#[inline(always)]
unsafe fn load_guarded<const N: usize, const ANCHORED: bool>(
    data: &[&[u8]],
    base: &[u32; LANES],
    off: usize,
    mask: u32,
    vals: &mut [u32; LANES],
) {
    debug_assert!(data.iter().zip(base).all(|(d, &b)| {
        let b = if ANCHORED { b as usize } else { 0 };
        b + off + N <= d.len()
    }));
    if ANCHORED {
        for ((v, d), &b) in vals.iter_mut().zip(data).zip(base) {
            // SAFETY: `b + off + N <= d.len()`, the caller's contract.
            *v = unsafe { read_unchecked::<N>(d, b as usize + off, mask) };
        }
    } else {
        // A loop of its own rather than a zero base: it walks one array less.
        for (v, d) in vals.iter_mut().zip(data) {
            // SAFETY: `off + N <= d.len()`, the caller's contract.
            *v = unsafe { read_unchecked::<N>(d, off, mask) };
        }
    }
}

/// The `N`-byte big-endian field at `at` of `d`, masked.
///
/// # Safety
/// `at + N <= d.len()`.
#[inline(always)]
unsafe fn read_unchecked<const N: usize>(d: &[u8], at: usize, mask: u32) -> u32 {
    // SAFETY: the `N` bytes from `at` lie inside `d` (the caller's contract).
    let w: [u8; N] = unsafe { d.as_ptr().add(at).cast::<[u8; N]>().read_unaligned() };
    w.iter().fold(0u32, |x, &b| x << 8 | b as u32) & mask
}

/// [`load_guarded`] for two fields `delta` bytes apart, into `vals` and `vals2`, in
/// one pass over the lanes.
///
/// # Safety
/// For every lane `l` of `data`, `base[l] + off + delta + N <= data[l].len()`.
#[inline(always)]
unsafe fn load_guarded2<const N: usize>(
    data: &[&[u8]],
    base: &[u32; LANES],
    off: usize,
    delta: usize,
    mask: u32,
    vals: &mut [u32; LANES],
    vals2: &mut [u32; LANES],
) {
    debug_assert!(data
        .iter()
        .zip(base)
        .all(|(d, &b)| b as usize + off + delta + N <= d.len()));
    for (((d, &b), v1), v2) in data.iter().zip(base).zip(vals).zip(vals2) {
        let at = b as usize + off;
        // SAFETY: `at + delta + N <= d.len()`, the caller's contract, so both
        // fields lie inside the packet.
        unsafe {
            *v1 = read_unchecked::<N>(d, at, mask);
            *v2 = read_unchecked::<N>(d, at + delta, mask);
        }
    }
}

/// Loads the `N`-byte big-endian field at `base[l] + off`, masked, into `vals[l]` for
/// the lanes `l` of `present`; returns those where it lies outside the packet or
/// outside 32-bit addresses, where the per-packet [`load`](crate::eval::load) faults.
#[inline(always)]
fn load_lanes<const N: usize>(
    data: &[&[u8]],
    base: &[u32; LANES],
    off: u64,
    mask: u32,
    present: Mask,
    vals: &mut [u32; LANES],
) -> Mask {
    let mut fault = 0;
    for l in bits(present) {
        let d = data[l];
        let at = base[l % LANES] as u64 + off;
        if at <= u32::MAX as u64 && at + N as u64 <= d.len() as u64 {
            // SAFETY: checked just above.
            vals[l % LANES] = unsafe { read_unchecked::<N>(d, at as usize, mask) };
        } else {
            fault |= 1 << l;
        }
    }
    fault
}

impl Run<'_> {
    /// A decoded EQ/MEQ/EQ2/RANGE/LEN over the lanes `eval`: the lanes where it is
    /// true (after negation). Lanes whose anchor does not resolve are false whatever
    /// the negation; lanes whose load faults die.
    pub(super) fn fast(&mut self, op: Op, neg: bool, eval: Mask) -> Mask {
        let pool = &self.form.pool;
        let (valid, hit) = match op {
            Op::Eq { field, ops, .. } => {
                let got = self.load(field.anchor, field.off as u64, field.size, field.mask, eval);
                (got, self.simd.eq_any(&self.s.vals, ops.values(pool)) & got)
            }
            Op::Eq2 {
                field, pair, ops, ..
            } => {
                let Field {
                    anchor,
                    size,
                    off,
                    mask,
                } = field;
                let (delta, both) = (u32::from(pair.delta), pair.both);
                let ops = ops.values(pool);
                if let Some(got) = self.load_both(anchor, off, delta, size, mask, eval) {
                    // Both fields of every lane in hand, nothing can fault: the
                    // second decides where the first did not.
                    let hit1 = self.simd.eq_any(&self.s.vals, ops);
                    let hit2 = self.simd.eq_any(&self.s.vals2, ops);
                    let hit = if both { hit1 & hit2 } else { hit1 | hit2 };
                    return if neg { got & !hit } else { got & hit };
                }
                let got1 = self.load_first(anchor, off, delta, size, mask, eval);
                let hit1 = self.simd.eq_any(&self.s.vals, ops) & got1;
                // The second field decides where the first did not.
                let second = got1 & if both { hit1 } else { !hit1 };
                let got2 = self.load_at(anchor, off as u64 + delta as u64, size, mask, second);
                let hit2 = self.simd.eq_any(&self.s.vals, ops) & got2;
                let decided = got1 & !second;
                (decided | got2, (hit1 & decided) | hit2)
            }
            Op::Range { field, ops } => {
                let got = self.load(field.anchor, field.off as u64, field.size, field.mask, eval);
                (
                    got,
                    self.simd.in_ranges(&self.s.vals, ops.ranges(pool)) & got,
                )
            }
            Op::Len { ops } => {
                let r = ops.ranges(pool);
                let w = self.lanes.wire;
                self.s.wire[..w.len()].copy_from_slice(w);
                (eval, self.simd.in_ranges(&self.s.wire, r) & eval)
            }
            _ => unreachable!("the batch form keeps other operations as Kind::Scalar"),
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
        let pool = &self.form.pool;
        let set = |(s, n): (u32, u32)| &pool[s as usize..(s + n) as usize];
        let Some(delta) = second else {
            let got = self.load(anchor, off as u64, size, mask, eval);
            return got & !self.simd.eq_any(&self.s.vals, set(all));
        };
        if let Some(got) = self.load_both(anchor, off, delta, size, mask, eval) {
            // Nothing can fault: neither field may be in any of the sets.
            let out1 = !self.simd.eq_any(&self.s.vals, set(all));
            return got & out1 & !self.simd.eq_any(&self.s.vals2, set(all));
        }
        let got1 = self.load_first(anchor, off, delta, size, mask, eval);
        // The second field is loaded wherever the first is not in the *first* set,
        // even if a later set holds it: the unfused run loads it there.
        let need2 = got1 & !self.simd.eq_any(&self.s.vals, set(first));
        let out1 = got1 & !self.simd.eq_any(&self.s.vals, set(all));
        let got2 = self.load_at(anchor, off as u64 + delta as u64, size, mask, need2);
        got2 & out1 & !self.simd.eq_any(&self.s.vals, set(all))
    }

    /// The length guard: whether the bytes up to anchor `a` + `end` lie inside every
    /// packet of the batch, so that loads there need no per-lane bounds check. Only
    /// anchors with a value in every lane (`anchor_max`) can pass.
    fn guarded(&self, a: u8, end: u64) -> bool {
        self.s.anchor_max[a as usize] as u64 + end <= self.lanes.min_len as u64
    }

    /// Both fields of a two-field test at once, into `vals` and `vals2`, for every
    /// lane, when the length guard covers the second (so neither can fault and
    /// neither address can overflow); returns the lanes of `eval` whose anchor
    /// resolves. `None` when the guard does not hold: then the fields load one after
    /// the other, as the per-packet engine loads them.
    fn load_both(
        &mut self,
        anchor: u8,
        off: u32,
        delta: u32,
        size: Size,
        mask: u32,
        eval: Mask,
    ) -> Option<Mask> {
        if let Some(got) = self.ipv4_pair(anchor, off, delta, size, mask, eval) {
            return Some(got);
        }
        // Resolving first may compute the anchor lane-wide, which the guard needs; the
        // field-by-field path resolves it first too.
        let present = self.present(anchor, eval);
        if !self.guarded(anchor, off as u64 + delta as u64 + size.bytes() as u64) {
            return None;
        }
        let base = &self.s.anchor_val[anchor as usize];
        let (data, v1, v2) = (self.lanes.data, &mut self.s.vals, &mut self.s.vals2);
        let (off, delta) = (off as usize, delta as usize);
        // SAFETY: `guarded` said the anchor has a value in every lane (anchor 0,
        // or one computed lane-wide) whose largest, plus `off + delta + size`, is
        // within the batch's shortest packet; so every lane's second field, and its
        // first before it, lies inside that lane's packet.
        unsafe {
            match size {
                Size::B1 => load_guarded2::<1>(data, base, off, delta, mask, v1, v2),
                Size::B2 => load_guarded2::<2>(data, base, off, delta, mask, v1, v2),
                Size::B4 => load_guarded2::<4>(data, base, off, delta, mask, v1, v2),
            }
        }
        Some(present)
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
    pub(super) fn overflows(&self, a: u8, add: u64, present: Mask) -> Mask {
        if a == 0 {
            // Anchor 0 is 0, and an offset plus a delta stays far below 2^32.
            return 0;
        }
        if self.s.anchor_max[a as usize] as u64 + add <= u32::MAX as u64 {
            // Not even the largest value of the batch overflows.
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
    pub(super) fn load_at(
        &mut self,
        anchor: u8,
        off: u64,
        size: Size,
        mask: u32,
        present: Mask,
    ) -> Mask {
        if present == 0 {
            return 0;
        }
        let guarded = self.guarded(anchor, off + size.bytes() as u64);
        let data = self.lanes.data;
        let base = &self.s.anchor_val[anchor as usize];
        let vals = &mut self.s.vals;
        if guarded {
            // The length guard holds: the field is inside every packet of the batch,
            // so every lane loads without per-lane bookkeeping.
            let at = off as usize;
            // SAFETY: `guarded` said the anchor has a value in every lane (anchor
            // 0, or one computed lane-wide) whose largest, plus `off + size`, is
            // within the batch's shortest packet, so every lane's field lies inside
            // its packet.
            unsafe {
                match (size, anchor == 0) {
                    (Size::B1, true) => load_guarded::<1, false>(data, base, at, mask, vals),
                    (Size::B2, true) => load_guarded::<2, false>(data, base, at, mask, vals),
                    (Size::B4, true) => load_guarded::<4, false>(data, base, at, mask, vals),
                    (Size::B1, false) => load_guarded::<1, true>(data, base, at, mask, vals),
                    (Size::B2, false) => load_guarded::<2, true>(data, base, at, mask, vals),
                    (Size::B4, false) => load_guarded::<4, true>(data, base, at, mask, vals),
                }
            }
            return present;
        }
        // One monomorphic loop per width, so no lane asks what size it loads.
        let fault = match size {
            Size::B1 => load_lanes::<1>(data, base, off, mask, present, vals),
            Size::B2 => load_lanes::<2>(data, base, off, mask, present, vals),
            Size::B4 => load_lanes::<4>(data, base, off, mask, present, vals),
        };
        self.s.dead |= fault;
        present & !fault
    }

    /// The lanes of `eval` where anchor `a` resolves, resolving it where needed;
    /// lanes that fault while resolving die.
    pub(super) fn present(&mut self, a: u8, eval: Mask) -> Mask {
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

    /// For an anchor that is the IPv4 payload after a header at a fixed offset `h`
    /// (returned) which lies inside the batch's shortest packet, and far enough below
    /// [`NO_ANCHOR`] that `h` plus a header length cannot reach it: the anchor can be
    /// computed for every lane at once, with no fault and no overflow possible.
    pub(super) fn lane_wide_ipv4(&self, a: usize) -> Option<u32> {
        match self.form.anchors.get(a).copied().flatten()? {
            (0, AnchorRule::Ipv4Payload, h)
                if a != 0 && (h as usize) < self.lanes.min_len && h < NO_ANCHOR - 60 =>
            {
                Some(h)
            }
            _ => None,
        }
    }

    /// Resolves anchor `a` for the lanes `need` (none of which has it yet): its
    /// parent first where that is missing, then the rule, lane by lane. The
    /// per-packet engine's `anchor`, with the rule chosen once per batch instead of
    /// once per packet.
    fn resolve(&mut self, a: usize, need: Mask) {
        self.s.anchor_ok[a] |= need;
        self.s.touched |= 1 << a;
        let Some((parent, rule, offset)) = self.form.anchors[a] else {
            for l in bits(need) {
                self.s.anchor_val[a][l] = NO_ANCHOR;
            }
            self.s.anchor_none[a] |= need;
            return;
        };
        let data = self.lanes.data;
        if self.lane_wide_ipv4(a).is_some() {
            // The common case (the transport header after an IPv4 header at a fixed
            // offset) under the length guard: the header-length byte is in every
            // packet and the result is small, so nothing can fault or overflow, and
            // the value is a function of the packet alone. Computing it for every
            // lane costs less than picking out the lanes that need it.
            let h = offset as usize;
            let vals = &mut self.s.anchor_val[a];
            let mut max = 0;
            for (v, d) in vals.iter_mut().zip(data) {
                // SAFETY: `h < min_len <= d.len()`.
                let b = unsafe { *d.as_ptr().add(h) };
                *v = offset + 4 * (b as u32 & 0x0f);
                max = max.max(*v);
            }
            // Every lane has its value now, not only those asked for.
            self.s.anchor_ok[a] = self.lanes.all;
            self.s.anchor_max[a] = max;
            return;
        }
        let missing = need & !self.s.anchor_ok[parent];
        if missing != 0 {
            self.resolve(parent, missing);
        }
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

    /// An operation without a lane form, one lane at a time through its per-packet
    /// test ([`Op::test`]), with the lane's anchors resolved as the lane forms
    /// resolve them.
    pub(super) fn scalar(&mut self, op: Op, negate: bool, eval: Mask) -> Mask {
        let pool = &self.form.pool;
        let mut hit = 0;
        for l in bits(eval) {
            match op.test(negate, pool, &mut Lane { run: self, l }) {
                Ok(true) => hit |= 1 << l,
                Ok(false) => {}
                Err(Fault) => self.s.dead |= 1 << l,
            }
        }
        hit
    }
}

/// One lane of a batch as an operation's [`Env`].
struct Lane<'r, 'a> {
    run: &'r mut Run<'a>,
    l: usize,
}

impl Env for Lane<'_, '_> {
    fn anchor(&mut self, a: u8) -> Result<Option<u32>, Fault> {
        let bit: Mask = 1 << self.l;
        let present = self.run.present(a, bit);
        if self.run.s.dead & bit != 0 {
            return Err(Fault);
        }
        Ok((present != 0).then(|| self.run.s.anchor_val[a as usize][self.l]))
    }
    fn anchor_offset(&self, a: u8) -> Option<u32> {
        self.run
            .form
            .anchors
            .get(a as usize)
            .copied()
            .flatten()
            .map(|(_, _, o)| o)
    }
    fn packet(&self) -> &[u8] {
        self.run.lanes.data[self.l]
    }
    fn wire_len(&self) -> u32 {
        self.run.lanes.wire[self.l]
    }
    fn contains(&self, table: u32, key: u64) -> Option<bool> {
        self.run.set.table_contains(table, key)
    }
}

const _: () = assert!(LANES <= Mask::BITS as usize);
