//! MPLS label stack entries (RFC 3032).
//!
//! Each 4-byte entry holds a 20-bit label, a 3-bit traffic class, the bottom-of-stack
//! bit and a TTL. [`MplsLabel`] views one entry; [`MplsStack`] walks a stack up to its
//! bottom entry, with a fixed bound on the number of entries.

use crate::bytes::{rest, u32_at};
use crate::error::{Error, Result};

/// Reserved label values.
pub mod label {
    /// IPv4 explicit null.
    pub const IPV4_EXPLICIT_NULL: u32 = 0;
    /// Router alert.
    pub const ROUTER_ALERT: u32 = 1;
    /// IPv6 explicit null.
    pub const IPV6_EXPLICIT_NULL: u32 = 2;
    /// Implicit null.
    pub const IMPLICIT_NULL: u32 = 3;
    /// Entropy label indicator.
    pub const ELI: u32 = 7;
    /// Generic associated channel label.
    pub const GAL: u32 = 13;
    /// OAM alert.
    pub const OAM_ALERT: u32 = 14;
    /// Extension label.
    pub const EXTENSION: u32 = 15;
}

/// A read view of one label stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MplsLabel<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> MplsLabel<T> {
    /// Length of a label stack entry.
    pub const HEADER_LEN: usize = 4;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        MplsLabel { buffer }
    }

    /// Wraps a buffer after checking it holds one entry.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let l = Self::new_unchecked(buffer);
        l.check_len()?;
        Ok(l)
    }

    /// Checks the buffer holds a whole entry.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < Self::HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// The raw 32-bit entry.
    pub fn raw(&self) -> u32 {
        u32_at(self.buffer.as_ref(), 0)
    }

    /// The 20-bit label.
    pub fn label(&self) -> u32 {
        self.raw() >> 12
    }

    /// The 3-bit traffic class (formerly EXP).
    pub fn traffic_class(&self) -> u8 {
        ((self.raw() >> 9) & 7) as u8
    }

    /// Whether this is the bottom of the stack.
    pub fn bottom_of_stack(&self) -> bool {
        self.raw() & 0x100 != 0
    }

    /// The time to live.
    pub fn ttl(&self) -> u8 {
        self.raw() as u8
    }

    /// Everything after this entry.
    pub fn payload(&self) -> &[u8] {
        rest(self.buffer.as_ref(), Self::HEADER_LEN)
    }
}

/// Most entries [`MplsStack`] walks before giving up.
pub const MAX_MPLS_LABELS: usize = 16;

/// One entry met by [`MplsStack`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MplsEntry {
    /// The 20-bit label.
    pub label: u32,
    /// The traffic class.
    pub traffic_class: u8,
    /// The bottom-of-stack bit.
    pub bottom: bool,
    /// The TTL.
    pub ttl: u8,
}

/// Walks a label stack until the bottom-of-stack entry.
///
/// Yields at most [`MAX_MPLS_LABELS`] entries; a deeper stack or an entry cut short
/// ends the walk with an error. [`MplsStack::payload`] gives the bytes after the
/// entries walked so far.
#[derive(Clone, Debug)]
pub struct MplsStack<'a> {
    rest: &'a [u8],
    count: usize,
    done: bool,
}

impl<'a> MplsStack<'a> {
    /// Starts a walk at the first entry of `buffer`.
    pub fn new(buffer: &'a [u8]) -> Self {
        MplsStack {
            rest: buffer,
            count: 0,
            done: false,
        }
    }

    /// The bytes after the entries walked so far.
    pub fn payload(&self) -> &'a [u8] {
        self.rest
    }

    /// Number of entries walked so far.
    pub fn depth(&self) -> usize {
        self.count
    }
}

impl Iterator for MplsStack<'_> {
    type Item = Result<MplsEntry>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.count >= MAX_MPLS_LABELS {
            self.done = true;
            return Some(Err(Error::Malformed));
        }
        let l = match MplsLabel::new_checked(self.rest) {
            Ok(l) => l,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        let e = MplsEntry {
            label: l.label(),
            traffic_class: l.traffic_class(),
            bottom: l.bottom_of_stack(),
            ttl: l.ttl(),
        };
        self.rest = rest(self.rest, MplsLabel::<&[u8]>::HEADER_LEN);
        self.count += 1;
        self.done = e.bottom;
        Some(Ok(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_fields() {
        // label 100704 (0x18960), tc 0, S, ttl 1
        let b = [0x18, 0x96, 0x01, 0x01, 0x45];
        let l = MplsLabel::new_checked(&b[..]).unwrap();
        assert_eq!(l.label(), 100704);
        assert_eq!(l.traffic_class(), 0);
        assert!(l.bottom_of_stack());
        assert_eq!(l.ttl(), 1);
        assert_eq!(l.payload(), &[0x45]);
        assert_eq!(
            MplsLabel::new_checked(&b[..3]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn stack_walk() {
        let b = [0x00, 0x01, 0x0a, 0x40, 0x00, 0x02, 0x01, 0xff, 0x60];
        let mut s = MplsStack::new(&b);
        let a = s.next().unwrap().unwrap();
        assert_eq!(
            (a.label, a.traffic_class, a.bottom, a.ttl),
            (16, 5, false, 64)
        );
        let z = s.next().unwrap().unwrap();
        assert_eq!((z.label, z.bottom, z.ttl), (32, true, 255));
        assert!(s.next().is_none());
        assert_eq!(s.payload(), &[0x60]);
    }

    #[test]
    fn stack_bounded() {
        let b = [0u8, 0, 0, 1].repeat(40);
        assert_eq!(MplsStack::new(&b).count(), MAX_MPLS_LABELS + 1);
        assert_eq!(
            MplsStack::new(&b).last().unwrap().unwrap_err(),
            Error::Malformed
        );
        assert_eq!(
            MplsStack::new(&b[..6]).nth(1).unwrap().unwrap_err(),
            Error::Truncated
        );
    }
}
