//! VXLAN (RFC 7348): an 8-byte header before an inner Ethernet frame, over UDP port
//! 4789 (Linux's older default is 8472).

use crate::bytes::{rest, u24_at, u8_at};
use crate::error::{Error, Result};

/// The IANA UDP port.
pub const VXLAN_PORT: u16 = 4789;

/// The "VNI valid" flag.
pub const FLAG_VNI: u8 = 0x08;

/// A read view of a VXLAN header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VxlanHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> VxlanHeader<T> {
    /// Length of the header.
    pub const HEADER_LEN: usize = 8;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        VxlanHeader { buffer }
    }

    /// Wraps a buffer after checking it holds the 8-byte header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        if buffer.as_ref().len() < Self::HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(Self::new_unchecked(buffer))
    }

    /// The flags byte.
    pub fn flags(&self) -> u8 {
        u8_at(self.buffer.as_ref(), 0)
    }

    /// Whether the VNI-valid flag is set.
    pub fn vni_valid(&self) -> bool {
        self.flags() & FLAG_VNI != 0
    }

    /// The 24-bit VXLAN network identifier.
    pub fn vni(&self) -> u32 {
        u24_at(self.buffer.as_ref(), 4)
    }

    /// The inner Ethernet frame.
    pub fn payload(&self) -> &[u8] {
        rest(self.buffer.as_ref(), Self::HEADER_LEN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header() {
        let b = [0x08, 0, 0, 0, 0x00, 0x00, 0x64, 0x00, 0xff];
        let v = VxlanHeader::new_checked(&b[..]).unwrap();
        assert!(v.vni_valid());
        assert_eq!(v.vni(), 100);
        assert_eq!(v.payload(), &[0xff]);
        assert_eq!(
            VxlanHeader::new_checked(&b[..7]).unwrap_err(),
            Error::Truncated
        );
    }
}
