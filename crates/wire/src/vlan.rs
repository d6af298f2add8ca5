//! IEEE 802.1Q VLAN tags and 802.1ad (QinQ) stacks of them.
//!
//! A tag is announced by its TPID (0x8100 for a customer tag, 0x88a8 for a service
//! tag, and the legacy 0x9100 / 0x9200) in the EtherType position. The 4-byte view
//! [`VlanTag`] starts right after that TPID: the 16-bit tag control information
//! (priority, drop-eligible bit, VLAN id) and the EtherType of what follows, which may
//! announce another tag. [`VlanStack`] walks nested tags with a fixed bound.

use crate::bytes::{rest, rest_mut, set_u16, u16_at, Field};
use crate::error::{Error, Result};
use crate::ethernet::EtherType;

mod field {
    use super::Field;
    pub(crate) const TCI: Field = 0..2;
    pub(crate) const ETHERTYPE: Field = 2..4;
    pub(crate) const PAYLOAD: usize = 4;
}

/// A read view of one VLAN tag: TCI and inner EtherType.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VlanTag<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> VlanTag<T> {
    /// Length of the tag body (TCI and EtherType).
    pub const HEADER_LEN: usize = field::PAYLOAD;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        VlanTag { buffer }
    }

    /// Wraps a buffer after checking it holds the 4-byte tag.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let t = Self::new_unchecked(buffer);
        t.check_len()?;
        Ok(t)
    }

    /// Checks the buffer holds the whole tag.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < Self::HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// The raw tag control information.
    pub fn tci(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::TCI.start)
    }

    /// The priority code point (0-7).
    pub fn priority(&self) -> u8 {
        (self.tci() >> 13) as u8
    }

    /// The drop-eligible indicator (formerly CFI).
    pub fn drop_eligible(&self) -> bool {
        self.tci() & 0x1000 != 0
    }

    /// The 12-bit VLAN identifier.
    pub fn vlan_id(&self) -> u16 {
        self.tci() & 0x0fff
    }

    /// The EtherType (or 802.3 length) after the tag.
    pub fn ethertype(&self) -> EtherType {
        EtherType(u16_at(self.buffer.as_ref(), field::ETHERTYPE.start))
    }

    /// Everything after the tag.
    pub fn payload(&self) -> &[u8] {
        rest(self.buffer.as_ref(), field::PAYLOAD)
    }
}

/// Most tags [`VlanStack`] walks before giving up.
pub const MAX_VLAN_TAGS: usize = 8;

/// One tag met by [`VlanStack`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VlanInfo {
    /// The TPID that announced the tag (0x8100, 0x88a8, ...).
    pub tpid: EtherType,
    /// The priority code point.
    pub priority: u8,
    /// The drop-eligible indicator.
    pub drop_eligible: bool,
    /// The VLAN id.
    pub vlan_id: u16,
    /// The EtherType after the tag.
    pub inner: EtherType,
}

/// Walks nested VLAN tags, given the first TPID and the bytes after it.
///
/// Yields at most [`MAX_VLAN_TAGS`] tags; a longer stack, or a tag cut short, ends the
/// walk with an error. After the walk, [`VlanStack::ethertype`] and
/// [`VlanStack::payload`] give the final EtherType and the bytes it covers.
#[derive(Clone, Debug)]
pub struct VlanStack<'a> {
    next: EtherType,
    rest: &'a [u8],
    count: usize,
    failed: bool,
}

impl<'a> VlanStack<'a> {
    /// Starts a walk at an EtherType field holding `ethertype`, followed by `payload`.
    pub fn new(ethertype: EtherType, payload: &'a [u8]) -> Self {
        VlanStack {
            next: ethertype,
            rest: payload,
            count: 0,
            failed: false,
        }
    }

    /// The EtherType reached so far (the final one once the walk is over).
    pub fn ethertype(&self) -> EtherType {
        self.next
    }

    /// The bytes after the tags walked so far.
    pub fn payload(&self) -> &'a [u8] {
        self.rest
    }

    /// Number of tags walked so far.
    pub fn depth(&self) -> usize {
        self.count
    }
}

impl<'a> Iterator for VlanStack<'a> {
    type Item = Result<VlanInfo>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || !self.next.is_vlan() {
            return None;
        }
        if self.count >= MAX_VLAN_TAGS {
            self.failed = true;
            return Some(Err(Error::Malformed));
        }
        let tag = match VlanTag::new_checked(self.rest) {
            Ok(t) => t,
            Err(e) => {
                self.failed = true;
                return Some(Err(e));
            }
        };
        let info = VlanInfo {
            tpid: self.next,
            priority: tag.priority(),
            drop_eligible: tag.drop_eligible(),
            vlan_id: tag.vlan_id(),
            inner: tag.ethertype(),
        };
        self.next = info.inner;
        self.rest = rest(self.rest, VlanTag::<&[u8]>::HEADER_LEN);
        self.count += 1;
        Some(Ok(info))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> VlanTag<T> {
    /// Sets the whole tag control information (priority, DEI, VLAN id).
    pub fn set_tci(&mut self, tci: u16) {
        set_u16(self.buffer.as_mut(), field::TCI.start, tci);
    }

    /// Sets the 12-bit VLAN id, keeping the priority and DEI bits.
    pub fn set_vlan_id(&mut self, id: u16) {
        let tci = self.tci() & 0xf000 | id & 0x0fff;
        self.set_tci(tci);
    }

    /// Sets the EtherType of what follows the tag.
    pub fn set_ethertype(&mut self, t: EtherType) {
        set_u16(self.buffer.as_mut(), field::ETHERTYPE.start, t.0);
    }

    /// Everything after the tag, to write into.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        rest_mut(self.buffer.as_mut(), field::PAYLOAD)
    }
}

/// The fields of one 802.1Q tag (the four bytes after its TPID), to
/// [`emit`](VlanRepr::emit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VlanRepr {
    /// The priority code point (3 bits).
    pub priority: u8,
    /// The drop eligible indicator.
    pub drop_eligible: bool,
    /// The VLAN id (12 bits).
    pub vlan_id: u16,
    /// The EtherType of what follows.
    pub ethertype: EtherType,
}

impl VlanRepr {
    /// The fields of a tag.
    pub fn parse<T: AsRef<[u8]>>(tag: &VlanTag<T>) -> VlanRepr {
        VlanRepr {
            priority: tag.priority(),
            drop_eligible: tag.drop_eligible(),
            vlan_id: tag.vlan_id(),
            ethertype: tag.ethertype(),
        }
    }

    /// The length of the tag this emits.
    pub const fn buffer_len(&self) -> usize {
        field::PAYLOAD
    }

    /// Writes the tag into `tag`.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, tag: &mut VlanTag<T>) {
        let tci = u16::from(self.priority & 7) << 13
            | u16::from(self.drop_eligible) << 12
            | self.vlan_id & 0x0fff;
        tag.set_tci(tci);
        tag.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_fields() {
        let b = [0xb0, 0x0a, 0x08, 0x00, 0x45];
        let t = VlanTag::new_checked(&b[..]).unwrap();
        assert_eq!(t.priority(), 5);
        assert!(t.drop_eligible());
        assert_eq!(t.vlan_id(), 10);
        assert_eq!(t.ethertype(), EtherType::IPV4);
        assert_eq!(t.payload(), &[0x45]);
        assert_eq!(VlanTag::new_checked(&b[..3]).unwrap_err(), Error::Truncated);
    }

    #[test]
    fn qinq_stack() {
        // 802.1ad vlan 200, then 802.1Q vlan 2001, then ARP.
        let b = [0x00, 0xc8, 0x81, 0x00, 0x07, 0xd1, 0x08, 0x06, 0xaa];
        let mut s = VlanStack::new(EtherType::QINQ, &b);
        let outer = s.next().unwrap().unwrap();
        assert_eq!((outer.tpid, outer.vlan_id), (EtherType::QINQ, 200));
        let inner = s.next().unwrap().unwrap();
        assert_eq!((inner.tpid, inner.vlan_id), (EtherType::VLAN, 2001));
        assert!(s.next().is_none());
        assert_eq!(s.ethertype(), EtherType::ARP);
        assert_eq!(s.payload(), &[0xaa]);
        assert_eq!(s.depth(), 2);
    }

    #[test]
    fn stack_is_bounded_and_truncation_stops() {
        let b: Vec<u8> = [0x00, 0x01, 0x81, 0x00].repeat(20);
        let s = VlanStack::new(EtherType::VLAN, &b);
        let items: Vec<_> = s.collect();
        assert_eq!(items.len(), MAX_VLAN_TAGS + 1);
        assert_eq!(items.last().unwrap().unwrap_err(), Error::Malformed);

        let mut s = VlanStack::new(EtherType::VLAN, &[0x00, 0x01]);
        assert_eq!(s.next().unwrap().unwrap_err(), Error::Truncated);
        assert!(s.next().is_none());
    }
}

#[cfg(test)]
mod emit_tests {
    use super::*;

    #[test]
    fn emit_writes_what_the_view_reads() {
        let repr = VlanRepr {
            priority: 5,
            drop_eligible: true,
            vlan_id: 0x123,
            ethertype: EtherType::IPV6,
        };
        let mut buf = [0u8; 4];
        let mut tag = VlanTag::new_unchecked(&mut buf[..]);
        repr.emit(&mut tag);
        assert_eq!(buf, [0xb1, 0x23, 0x86, 0xdd]);
        let tag = VlanTag::new_checked(&buf[..]).unwrap();
        assert_eq!(VlanRepr::parse(&tag), repr);
        VlanTag::new_unchecked(&mut buf[..]).set_vlan_id(12);
        assert_eq!(buf, [0xb0, 0x0c, 0x86, 0xdd]);
    }
}
