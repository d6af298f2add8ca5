//! The calling convention every function of the library shares: arguments are
//! 64-bit little-endian slots of the input region (what FPL's `MEM[i]` holds at
//! bytes `8i .. 8i+8`), results are written as slots of the output region, and
//! a packet range is a `(start, len)` pair of slots.
//!
//! Everything here is total: a missing slot reads as 0, a write to a region of
//! the wrong size is dropped (an executor that broke its contract gets nothing
//! written rather than a panic), and a range is cut to the packet.

/// Slot `i` of `region` as a signed 64-bit value; 0 when the region is too short.
pub(crate) fn slot(region: &[u8], i: usize) -> i64 {
    let at = i.saturating_mul(8);
    region
        .get(at..at.saturating_add(8))
        .and_then(|b| b.try_into().ok())
        .map_or(0, i64::from_le_bytes)
}

/// Writes `values` as consecutive slots from the start of `out`, only if they
/// all fit; returns whether they were written.
pub(crate) fn put_slots(out: &mut [u8], values: &[i64]) -> bool {
    if out.len() < values.len().saturating_mul(8) {
        return false;
    }
    for (chunk, v) in out.chunks_exact_mut(8).zip(values) {
        chunk.copy_from_slice(&v.to_le_bytes());
    }
    true
}

/// A packet range read from slots `i` (start) and `i + 1` (length).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Range {
    /// The first byte, as given.
    pub(crate) start: i64,
    /// The length, as given.
    pub(crate) len: i64,
}

impl Range {
    /// The range in slots `i` and `i + 1` of `input`.
    pub(crate) fn read(input: &[u8], i: usize) -> Range {
        Range {
            start: slot(input, i),
            len: slot(input, i + 1),
        }
    }

    /// The bytes of `packet` in the range, cut at the packet's end: a search
    /// may ask for "up to 1,500 bytes from the payload". `None` for a negative
    /// start or length (a program's mistake, never a valid range).
    pub(crate) fn clamped(self, packet: &[u8]) -> Option<(usize, &[u8])> {
        let start = usize::try_from(self.start).ok()?;
        let len = usize::try_from(self.len).ok()?;
        let start = start.min(packet.len());
        let end = start.saturating_add(len).min(packet.len());
        Some((start, &packet[start..end]))
    }

    /// The bytes of `packet` in the range, only if all of them were captured:
    /// a checksum of a cut range would be a wrong answer, not a shorter one.
    pub(crate) fn exact(self, packet: &[u8]) -> Option<&[u8]> {
        let start = usize::try_from(self.start).ok()?;
        let len = usize::try_from(self.len).ok()?;
        packet.get(start..start.checked_add(len)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_and_ranges() {
        let mut m = [0u8; 24];
        assert!(put_slots(&mut m, &[5, -1, 7]));
        assert_eq!(
            (slot(&m, 0), slot(&m, 1), slot(&m, 2), slot(&m, 3)),
            (5, -1, 7, 0)
        );
        assert!(!put_slots(&mut m[..8], &[1, 2]));
        let p = [1u8, 2, 3, 4];
        let r = |start, len| Range { start, len };
        assert_eq!(r(1, 2).clamped(&p), Some((1, &p[1..3])));
        assert_eq!(r(3, 100).clamped(&p), Some((3, &p[3..])));
        assert_eq!(r(9, 1).clamped(&p), Some((4, &p[4..])));
        assert_eq!(r(-1, 1).clamped(&p), None);
        assert_eq!(r(1, -1).clamped(&p), None);
        assert_eq!(r(1, 3).exact(&p), Some(&p[1..]));
        assert_eq!(r(1, 4).exact(&p), None);
        assert_eq!(r(0, i64::MAX).exact(&p), None);
    }
}
