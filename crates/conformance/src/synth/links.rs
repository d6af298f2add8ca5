//! Frames of the link types beyond the first eight (issue 26): the PPP family,
//! Cisco HDLC, Frame Relay, SLIP, enc, pflog, ipnet and netANALYZER headers around the
//! same network-layer payloads, with the header fields drawn from the values the
//! filters test and from random ones, and now and then a byte of the header
//! mutated. Link types whose filters test only lengths get random bytes.

use super::{Gen, ETH_IPV4, ETH_IPV6};
use netsift_wire::LinkType;

/// PPP protocol numbers: IPv4, IPv6, OSI, DECnet, AppleTalk, IPX, STP, VJ
/// compressed and uncompressed TCP, MPLS, IPCP, LCP, PAP.
const PPP_PROTOS: &[u16] = &[
    0x0021, 0x0057, 0x0023, 0x0027, 0x0029, 0x002b, 0x0031, 0x002d, 0x002f, 0x0281, 0x8021, 0xc021,
    0xc023,
];
/// Frame Relay NLPIDs: IPv4, IPv6, CLNP, ES-IS, IS-IS, SNAP.
const FR_NLPIDS: &[u8] = &[0xcc, 0x8e, 0x81, 0x82, 0x83, 0x80];

impl Gen {
    /// A network-layer payload with the PPP protocol number that announces it.
    fn ppp_payload(&mut self) -> (u16, Vec<u8>) {
        if self.rng.chance(70) {
            let l3 = self.ip();
            let proto = if l3.ethertype == ETH_IPV4 {
                0x0021
            } else {
                0x0057
            };
            return (proto, l3.bytes);
        }
        let proto = if self.rng.chance(85) {
            *self.rng.pick(PPP_PROTOS)
        } else {
            self.rng.u16()
        };
        let body = match proto {
            0x0281 => self.mpls(),
            0x002d | 0x002f => self.ipv4(),
            _ => self.payload(120),
        };
        (proto, body)
    }

    /// One frame of a link type of [`LinkType::filtered_more`].
    pub(super) fn frame_more(&mut self, lt: LinkType) -> Vec<u8> {
        let mut v = match lt {
            LinkType::PPP | LinkType::PPP_SERIAL | LinkType::PPP_PPPD => {
                let (proto, body) = self.ppp_payload();
                let first = match lt {
                    LinkType::PPP_PPPD => *self.rng.pick(&[0u8, 1, 2]),
                    _ => 0xff,
                };
                let mut v = vec![first, 0x03];
                v.extend_from_slice(&proto.to_be_bytes());
                v.extend_from_slice(&body);
                v
            }
            LinkType::PPP_ETHER => {
                let (proto, body) = self.ppp_payload();
                let len = (body.len() + 2) as u16;
                let mut v = vec![0x11, 0x00];
                v.extend_from_slice(&self.rng.u16().to_be_bytes());
                v.extend_from_slice(&len.to_be_bytes());
                v.extend_from_slice(&proto.to_be_bytes());
                v.extend_from_slice(&body);
                v
            }
            LinkType::PPP_BSDOS | LinkType::SLIP_BSDOS | LinkType::SLIP => {
                // A header of 24 (BSD/OS) or 16 bytes; BSD/OS PPP's protocol at 5.
                let n = if lt == LinkType::SLIP { 16 } else { 24 };
                let mut v = self.rng.bytes(n);
                v[0] = *self.rng.pick(&[0u8, 1, 2]);
                let body = if lt == LinkType::PPP_BSDOS {
                    let (proto, body) = self.ppp_payload();
                    v[5..7].copy_from_slice(&proto.to_be_bytes());
                    body
                } else {
                    self.ip().bytes
                };
                v.extend_from_slice(&body);
                v
            }
            LinkType::C_HDLC => {
                let (ty, body) = match self.rng.weighted(&[70, 10, 10, 10]) {
                    0 => {
                        let l3 = self.l3();
                        (l3.ethertype, l3.bytes)
                    }
                    1 => (0xfefe, self.iso_body()),
                    2 => (0x8847, self.mpls()),
                    _ => (0x8035, self.arp()),
                };
                let mut v = vec![*self.rng.pick(&[0x0fu8, 0x8f]), 0x00];
                v.extend_from_slice(&ty.to_be_bytes());
                v.extend_from_slice(&body);
                v
            }
            LinkType::FRELAY => {
                let nlpid = *self.rng.pick(FR_NLPIDS);
                let body = match nlpid {
                    0xcc => self.ipv4(),
                    0x8e => self.ipv6(),
                    _ => self.payload(100),
                };
                let mut v = self.rng.bytes(2);
                v.extend_from_slice(&[0x03, nlpid]);
                v.extend_from_slice(&body);
                v
            }
            LinkType::ENC => {
                let l3 = self.ip();
                let af: u32 = if l3.ethertype == ETH_IPV6 {
                    *self.rng.pick(&[24u32, 28, 30, 10])
                } else {
                    2
                };
                // The AF in either byte order: the capturing host's.
                let mut v = if self.rng.chance(50) {
                    af.to_le_bytes().to_vec()
                } else {
                    af.to_be_bytes().to_vec()
                };
                v.extend_from_slice(&self.rng.bytes(8));
                v.extend_from_slice(&l3.bytes);
                v
            }
            LinkType::IPNET => {
                let l3 = self.ip();
                let mut v = self.rng.bytes(24);
                v[0] = 1;
                v[1] = if l3.ethertype == ETH_IPV6 { 26 } else { 2 };
                v[2..4].copy_from_slice(&self.rng.pick(&[1u16, 2, 3]).to_be_bytes());
                v.extend_from_slice(&l3.bytes);
                v
            }
            LinkType::PFLOG => self.pflog(),
            LinkType::IEEE802_11
            | LinkType::IEEE802_11_RADIO
            | LinkType::IEEE802_11_RADIO_AVS
            | LinkType::PRISM_HEADER
            | LinkType::PPI => self.wlan(lt),
            LinkType::NETANALYZER | LinkType::NETANALYZER_TRANSPARENT => {
                let n = if lt == LinkType::NETANALYZER { 4 } else { 12 };
                let mut v = self.rng.bytes(n);
                v.extend_from_slice(&self.ethernet_random());
                v
            }
            _ => match self.frame_lan(lt) {
                Some(v) => v,
                None => self.payload(100),
            },
        };
        // A mutated header byte now and then.
        if !v.is_empty() && self.rng.chance(10) {
            let i = self.rng.below(v.len().min(32) as u64) as usize;
            v[i] = self.rng.u8();
        }
        v
    }

    /// An OSI packet's first bytes (CLNP, ES-IS, IS-IS NLPID, then a length).
    fn iso_body(&mut self) -> Vec<u8> {
        let mut v = vec![0xfe, *self.rng.pick(&[0x81u8, 0x82, 0x83])];
        v.extend_from_slice(&self.payload(80));
        v
    }

    /// A pflog header (`struct pfloghdr`, its length byte usually 61) and IP.
    fn pflog(&mut self) -> Vec<u8> {
        let l3 = self.ip();
        let mut v = self.rng.bytes(64);
        v[0] = if self.rng.chance(85) {
            61
        } else {
            self.rng.u8() & 0x7f
        };
        v[1] = if l3.ethertype == ETH_IPV6 { 10 } else { 2 };
        v[2] = self.rng.below(12) as u8; // action
        v[3] = self.rng.below(16) as u8; // reason
        let names: [&[u8]; 3] = [b"eth0", b"testname1", b"em0"];
        let name = *self.rng.pick(&names);
        v[4..20].fill(0);
        v[4..4 + name.len()].copy_from_slice(name);
        if self.rng.chance(50) {
            v[20..36].fill(0);
            v[20..32].copy_from_slice(b"testruleset2");
        }
        if self.rng.chance(50) {
            v[36..40].copy_from_slice(&0x0045_6789u32.to_be_bytes());
            v[40..44].copy_from_slice(&123u32.to_be_bytes());
        }
        v[60] = self.rng.below(4) as u8; // direction
        v.extend_from_slice(&l3.bytes);
        v
    }
}
