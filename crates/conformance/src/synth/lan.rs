//! Frames of the LANs other than Ethernet (FDDI, Token Ring, IP over Fibre
//! Channel, ARCNET, IEEE 1394), of ATM (LLC-encapsulated, and SunATM with LANE,
//! LLC and signalling traffic) and of SS7 (MTP2 signal units, bare, after a
//! pseudo-header, or in an ERF record): the fields the filters test drawn from
//! their values and from random ones.

use super::{put16, Gen};
use netsift_wire::LinkType;

/// ARCNET protocol bytes: IPv4, ARP, RARP, AppleTalk, IPv6, RFC 1051's IPv4 and
/// ARP, IPX, diagnostics.
const ARCTYPES: &[u8] = &[212, 213, 214, 221, 0xc4, 240, 241, 250, 0x80];
/// SunATM traffic types (low nibble of the first byte): raw, LANE, LLC, ILMI.
const ATM_TRAFFIC: &[u8] = &[0x00, 0x01, 0x02, 0x05];
/// (VPI, VCI) of the well-known circuits and of some data circuits.
const ATM_CIRCUITS: &[(u8, u16)] = &[
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 4),
    (0, 5),
    (0, 16),
    (1, 32),
    (3, 5),
    (0, 0),
];
/// Q.2931 message types the signalling primitives test, and one more.
const Q2931_MSGS: &[u8] = &[0x05, 0x02, 0x07, 0x0f, 0x4d, 0x5a, 0x46];

impl Gen {
    /// An 802.2 LLC body: mostly SNAP around a network-layer packet (as RFC 1042
    /// and RFC 1483 put IP on these links), else what [`Gen::llc`] makes.
    fn llc_body(&mut self) -> Vec<u8> {
        if self.rng.chance(40) {
            return self.llc();
        }
        let l3 = self.l3();
        let mut v = vec![0xaa, 0xaa, 0x03, 0, 0, 0];
        if self.rng.chance(10) {
            v[3..6].copy_from_slice(&[0x08, 0x00, 0x07]);
        }
        put16(&mut v, l3.ethertype);
        v.extend_from_slice(&l3.bytes);
        v
    }

    /// One frame of the link types of this module, `None` for others.
    pub(super) fn frame_lan(&mut self, lt: LinkType) -> Option<Vec<u8>> {
        let mut v = match lt {
            LinkType::FDDI => {
                let fc = *self.rng.pick(&[0x50u8, 0x51, 0x57, 0x41]);
                let mut v = vec![fc];
                v.extend_from_slice(&self.mac());
                v.extend_from_slice(&self.mac());
                v
            }
            LinkType::IEEE802 => {
                let mut v = vec![0x10, 0x40];
                v.extend_from_slice(&self.mac());
                v.extend_from_slice(&self.mac());
                v
            }
            LinkType::IP_OVER_FC => {
                let mut v = vec![0x10, 0x00];
                v.extend_from_slice(&self.mac());
                v.extend_from_slice(&[0x10, 0x00]);
                v.extend_from_slice(&self.mac());
                v
            }
            LinkType::ATM_RFC1483 | LinkType::ATM_CLIP => Vec::new(),
            LinkType::SUNATM => return Some(self.sunatm()),
            LinkType::ARCNET | LinkType::ARCNET_LINUX => return Some(self.arcnet(lt)),
            LinkType::APPLE_IP_OVER_IEEE1394 => {
                let l3 = self.l3();
                let mut v = self.rng.bytes(16);
                put16(&mut v, l3.ethertype);
                v.extend_from_slice(&l3.bytes);
                return Some(v);
            }
            LinkType::MTP2 | LinkType::MTP2_WITH_PHDR | LinkType::ERF => {
                let pre = match lt {
                    LinkType::MTP2 => 0,
                    LinkType::MTP2_WITH_PHDR => 4,
                    _ => 20,
                };
                let mut v = self.rng.bytes(pre);
                v.extend_from_slice(&self.mtp2());
                return Some(v);
            }
            lt if (130..=238).contains(&lt.0)
                && lt.name().is_some_and(|n| n.starts_with("JUNIPER_")) =>
            {
                return Some(self.juniper(lt));
            }
            _ => return None,
        };
        v.extend_from_slice(&self.llc_body());
        Some(v)
    }

    /// SunATM: flags and traffic type, VPI, VCI, then an AAL5 frame of that type.
    fn sunatm(&mut self) -> Vec<u8> {
        let ty = *self.rng.pick(ATM_TRAFFIC) | (self.rng.u8() & 0xf0);
        let (vpi, vci) = if self.rng.chance(85) {
            *self.rng.pick(ATM_CIRCUITS)
        } else {
            (self.rng.u8(), self.rng.u16())
        };
        let mut v = vec![ty, vpi];
        put16(&mut v, vci);
        match ty & 0x0f {
            0x01 => {
                // LANE: an LE header (0xff00 marks control frames), then Ethernet.
                let lec: u16 = if self.rng.chance(20) {
                    0xff00
                } else {
                    self.rng.u16()
                };
                put16(&mut v, lec);
                v.extend_from_slice(&self.ethernet_random());
            }
            0x02 => v.extend_from_slice(&self.llc_body()),
            _ => {
                // Q.2931: protocol discriminator, call reference, message type.
                let mut q = vec![0x09, 0x03, 0x00, 0x00, 0x01];
                q.push(*self.rng.pick(Q2931_MSGS));
                q.extend_from_slice(&self.payload(40));
                v.extend_from_slice(&q);
            }
        }
        v
    }

    /// ARCNET: source, destination, (Linux: a 2-byte offset,) the protocol byte,
    /// RFC 1201's split flag and sequence number, then the packet.
    fn arcnet(&mut self, lt: LinkType) -> Vec<u8> {
        let addr = |g: &mut Gen| {
            *g.rng
                .pick(&[0x00u8, 0xd0, 0xd4, 0xda, 0xde, 0xd8, 0x01, 0xff])
        };
        let mut v = vec![addr(self), addr(self)];
        if lt == LinkType::ARCNET_LINUX {
            v.extend_from_slice(&self.rng.bytes(2));
        }
        let ty = if self.rng.chance(90) {
            *self.rng.pick(ARCTYPES)
        } else {
            self.rng.u8()
        };
        v.push(ty);
        v.extend_from_slice(&self.rng.bytes(3));
        let body = match ty {
            212 | 240 => self.ipv4(),
            0xc4 => self.ipv6(),
            213 | 214 | 241 => self.arp(),
            _ => self.payload(100),
        };
        v.extend_from_slice(&body);
        v
    }

    /// A Juniper capture header (the magic "MGC" mostly, a flags byte, a cookie)
    /// up to where libpcap looks for the network layer, then an IP packet (or an
    /// LLC body, for the offsets past SNAP).
    fn juniper(&mut self, lt: LinkType) -> Vec<u8> {
        let mut v = if self.rng.chance(90) {
            b"MGC".to_vec()
        } else {
            self.rng.bytes(3)
        };
        v.push(self.rng.u8() & 0x03);
        // Where the network layer starts for this type (init_linktype's off_linkpl +
        // off_nl), or a header of random length where libpcap leaves it unset.
        let at = match lt.0 {
            167 | 178 => 32,
            133 => 12,
            164 => 12,
            135 => 8,
            168 => 6,
            134 | 131 | 130 | 179 | 181 | 180 | 137 => 4,
            _ => self.rng.range(4, 24) as usize,
        };
        v.extend_from_slice(&self.rng.bytes(at - 4));
        if self.rng.chance(80) {
            v.extend_from_slice(&self.ip().bytes);
        } else {
            v.extend_from_slice(&self.llc_body());
        }
        v
    }

    /// An MTP2 signal unit: sequence numbers, the length indicator (FISU 0, LSSU 1
    /// or 2, MSU 3 and more, spare bits random now and then), the SIO and an MTP3
    /// routing label.
    fn mtp2(&mut self) -> Vec<u8> {
        let mut v = self.rng.bytes(2);
        let li = *self.rng.pick(&[0u8, 1, 2, 3, 20, 63]) | (self.rng.u8() & 0xc0);
        v.push(li);
        let sio = *self.rng.pick(&[0x03u8, 0x05, 0x85, 0x0a, 0x00, 0xff]);
        v.push(sio);
        v.extend_from_slice(&self.rng.bytes(4));
        v.extend_from_slice(&self.payload(40));
        v
    }
}
