//! Bounds-safe big-endian readers used by the views.
//!
//! Every view validates its buffer once in `new_checked`; the accessors then read
//! through these helpers, which fall back to zero (or an empty slice) instead of
//! panicking should a check ever be wrong. A view built with `new_unchecked` over a
//! short buffer therefore yields garbage, never a panic.

use core::ops::Range;

/// A byte range inside a header.
pub(crate) type Field = Range<usize>;

#[inline]
pub(crate) fn u8_at(b: &[u8], at: usize) -> u8 {
    b.get(at).copied().unwrap_or(0)
}

#[inline]
pub(crate) fn u16_at(b: &[u8], at: usize) -> u16 {
    match b.get(at..at.saturating_add(2)) {
        Some(&[x, y]) => u16::from_be_bytes([x, y]),
        _ => 0,
    }
}

#[inline]
pub(crate) fn u24_at(b: &[u8], at: usize) -> u32 {
    match b.get(at..at.saturating_add(3)) {
        Some(&[x, y, z]) => u32::from_be_bytes([0, x, y, z]),
        _ => 0,
    }
}

#[inline]
pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    match b.get(at..at.saturating_add(4)) {
        Some(&[w, x, y, z]) => u32::from_be_bytes([w, x, y, z]),
        _ => 0,
    }
}

#[inline]
pub(crate) fn slice(b: &[u8], r: Field) -> &[u8] {
    b.get(r).unwrap_or(&[])
}

#[inline]
pub(crate) fn rest(b: &[u8], from: usize) -> &[u8] {
    b.get(from..).unwrap_or(&[])
}

/// `b[from..to]` clamped to the buffer (empty when `from` is past the end).
#[inline]
pub(crate) fn clamp(b: &[u8], from: usize, to: usize) -> &[u8] {
    let to = to.min(b.len());
    b.get(from..to).unwrap_or(&[])
}

#[inline]
pub(crate) fn array<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    if let Some(s) = b.get(at..at.saturating_add(N)) {
        out.copy_from_slice(s);
    }
    out
}

// The writers below serve the views' setters. Like the readers they never panic:
// a write past the end of the buffer is dropped (an `emit` sizes its buffer with
// the repr's `buffer_len` first, so nothing is dropped there).

#[inline]
pub(crate) fn set_u8(b: &mut [u8], at: usize, v: u8) {
    if let Some(x) = b.get_mut(at) {
        *x = v;
    }
}

#[inline]
pub(crate) fn set_u16(b: &mut [u8], at: usize, v: u16) {
    set_bytes(b, at, &v.to_be_bytes());
}

#[inline]
pub(crate) fn set_u32(b: &mut [u8], at: usize, v: u32) {
    set_bytes(b, at, &v.to_be_bytes());
}

/// Copies `v` to `b[at..]` when it fits whole.
#[inline]
pub(crate) fn set_bytes(b: &mut [u8], at: usize, v: &[u8]) {
    if let Some(s) = b.get_mut(at..at.saturating_add(v.len())) {
        s.copy_from_slice(v);
    }
}

/// `b[from..to]` clamped to the buffer, to write into.
#[inline]
pub(crate) fn clamp_mut(b: &mut [u8], from: usize, to: usize) -> &mut [u8] {
    let to = to.min(b.len());
    b.get_mut(from..to).unwrap_or(&mut [])
}

#[inline]
pub(crate) fn rest_mut(b: &mut [u8], from: usize) -> &mut [u8] {
    b.get_mut(from..).unwrap_or(&mut [])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_never_panic() {
        let b = [1u8, 2, 3];
        assert_eq!(u16_at(&b, 1), 0x0203);
        assert_eq!(u16_at(&b, 2), 0);
        assert_eq!(u32_at(&b, 0), 0);
        assert_eq!(u24_at(&b, 0), 0x010203);
        assert_eq!(u8_at(&b, usize::MAX), 0);
        assert_eq!(u16_at(&b, usize::MAX), 0);
        assert_eq!(clamp(&b, 2, 10), &[3]);
        assert_eq!(clamp(&b, 5, 10), &[] as &[u8]);
        assert_eq!(array::<2>(&b, 2), [0, 0]);
        let mut w = [0u8; 3];
        set_u16(&mut w, 1, 0xabcd);
        set_u16(&mut w, 2, 0xffff);
        set_u32(&mut w, 0, 1);
        set_u8(&mut w, usize::MAX, 1);
        assert_eq!(w, [0, 0xab, 0xcd]);
        assert_eq!(
            crate::checksum::ones_sum(0, &[0xff, 0xff, 0x00, 0x01]),
            0x0001
        );
    }
}
