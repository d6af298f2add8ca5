//! The commonest anchored test, `tcp port 80` and its kind: a pair of fields in the
//! transport header after an IPv4 header at a fixed offset.
//!
//! Done the general way, the batch walks its lanes twice: once to compute the IPv4
//! payload anchor of every lane (`resolve`'s lane-wide form), once to load the two
//! fields there. Here one walk does both: each lane's packet pointer and
//! header-length byte are read once, and the port pair comes from one 4-byte read.
//!
//! Exact: the anchor values are those `resolve` computes, and they are kept for
//! later instructions. The word is read at a position clamped into the shortest
//! packet, so no read leaves a packet; if any lane's word really lay past that
//! point, the loaded values are dropped and the caller loads field by field, with
//! the anchor already resolved.

use super::walk::Run;
use super::{Mask, LANES};
use netsift_isa::insn::Size;

impl Run<'_> {
    /// Both fields of a two-field test at IPv4-payload anchor `a` (`delta + size
    /// <= 4`), into `vals` and `vals2`, with the anchor computed in the same walk.
    /// `None` when the shape does not apply or some lane's word is past the
    /// shortest packet (the anchor may then be resolved already).
    pub(super) fn ipv4_pair(
        &mut self,
        a: u8,
        off: u32,
        delta: u32,
        size: Size,
        mask: u32,
        eval: Mask,
    ) -> Option<Mask> {
        let ai = a as usize;
        let n = size.bytes() as usize;
        let min = self.lanes.min_len;
        // `resolve`'s lane-wide form, and not where a lane has the anchor already
        // (resolved by an earlier test).
        let h = self.lane_wide_ipv4(ai)?;
        if self.s.anchor_ok[ai] != 0 || delta as usize + n > 4 || min < 4 {
            return None;
        }
        let last = (min - 4) as u64;
        let max = match (n, delta) {
            // Ports: the word is the pair, no shift for the second.
            (2, 2) => self.walk::<16, 0>(ai, h, off as u64, last, mask),
            (1, 1) => self.walk::<24, 16>(ai, h, off as u64, last, mask),
            (1, 2) => self.walk::<24, 8>(ai, h, off as u64, last, mask),
            (1, 3) => self.walk::<24, 0>(ai, h, off as u64, last, mask),
            (2, 1) => self.walk::<16, 8>(ai, h, off as u64, last, mask),
            _ => return None,
        };
        // Every lane has its anchor now, as after `resolve`'s lane-wide form.
        self.s.anchor_ok[ai] = self.lanes.all;
        self.s.anchor_max[ai] = max;
        self.s.touched |= 1 << ai;
        (max as u64 + off as u64 <= last).then_some(eval & !self.s.dead)
    }
}

impl Run<'_> {
    fn walk<const S1: u32, const S2: u32>(
        &mut self,
        ai: usize,
        h: u32,
        off: u64,
        last: u64,
        mask: u32,
    ) -> u32 {
        let out = Pair {
            anchors: &mut self.s.anchor_val[ai],
            first: &mut self.s.vals,
            second: &mut self.s.vals2,
        };
        // SAFETY: `ipv4_pair` calls this with `h` below the batch's shortest packet
        // length (`lane_wide_ipv4`) and `last + 4` equal to it (it checked that
        // length is at least 4).
        unsafe { pair_walk::<S1, S2>(self.lanes.data, h, off, last, mask, out) }
    }
}

/// Where [`pair_walk`] writes: each lane's anchor and its two fields.
struct Pair<'a> {
    anchors: &'a mut [u32; LANES],
    first: &'a mut [u32; LANES],
    second: &'a mut [u32; LANES],
}

/// The walk of [`Run::ipv4_pair`] for fields at the top `32 - S1` and `32 - S2`
/// bits of the word (shifts known at compile time); returns the largest anchor.
/// `last + 4` is the shortest packet's length and `h` lies below it.
///
/// A function of its own, not inlined: inside the walker's large functions the
/// loop's values spilled to the stack (27 instructions a lane, against 21 here).
///
/// # Safety
/// Every packet of `data` is at least `last + 4` bytes long, and `h < last + 4`.
#[inline(never)]
unsafe fn pair_walk<const S1: u32, const S2: u32>(
    data: &[&[u8]],
    h: u32,
    off: u64,
    last: u64,
    mask: u32,
    out: Pair<'_>,
) -> u32 {
    let mut walk = |data: &[&[u8]]| {
        let mut max = 0;
        for (l, d) in data.iter().enumerate().take(LANES) {
            let p = d.as_ptr();
            // SAFETY: `h < last + 4 <= d.len()`, the caller's contract.
            let b = unsafe { *p.add(h as usize) };
            let v = h + 4 * (b as u32 & 0x0f);
            out.anchors[l] = v;
            max = max.max(v);
            // Clamped, so the read stays inside the shortest packet whatever the
            // lane's anchor; if the clamp bit, the caller drops these values.
            let at = (v as u64 + off).min(last) as usize;
            // SAFETY: `at + 4 <= last + 4 <= d.len()`.
            let w = u32::from_be_bytes(unsafe { p.add(at).cast::<[u8; 4]>().read_unaligned() });
            out.first[l] = w >> S1 & mask;
            out.second[l] = w >> S2 & mask;
        }
        max
    };
    // A full batch gets a loop of known length (one exit test a lane, not two).
    match <&[&[u8]; LANES]>::try_from(data) {
        Ok(full) => walk(&full[..]),
        Err(_) => walk(data),
    }
}
