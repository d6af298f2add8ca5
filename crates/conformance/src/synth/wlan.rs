//! 802.11 frames (issue 26) bare and after the capture headers libpcap reads
//! the length of: radiotap (with and without a TSFT field, the flags byte's
//! padding bit, extended presence words), PPI (of 802.11 mostly), AVS and Prism
//! (or an AVS header in its place). Every frame type and direction, QoS data, a
//! fourth address, LLC/SNAP over IP, ARP and other protocols, and LLC SAPs.

use super::Gen;
use netsift_wire::LinkType;

/// LLC headers other than SNAP: IP, STP, IPX, NetBEUI and ISO SAPs.
const SAPS: &[[u8; 3]] = &[
    [0x06, 0x06, 0x03],
    [0x42, 0x42, 0x03],
    [0xe0, 0xe0, 0x03],
    [0xf0, 0xf0, 0x03],
    [0xfe, 0xfe, 0x03],
];

impl Gen {
    /// A frame of one of the 802.11 link types.
    pub(super) fn wlan(&mut self, lt: LinkType) -> Vec<u8> {
        let (frame, data) = self.wlan_80211();
        match lt {
            LinkType::IEEE802_11_RADIO => self.radiotap(frame, data),
            LinkType::PPI => {
                let fields = 4 * self.rng.below(8) as usize;
                let dlt: u32 = match self.rng.weighted(&[85, 10, 5]) {
                    0 => 105,
                    1 => 1,
                    _ => self.rng.u16() as u32,
                };
                let mut v = vec![0, 0];
                v.extend_from_slice(&((8 + fields) as u16).to_le_bytes());
                v.extend_from_slice(&dlt.to_le_bytes());
                v.extend_from_slice(&self.rng.bytes(fields));
                v.extend_from_slice(&frame);
                v
            }
            LinkType::IEEE802_11_RADIO_AVS => self.avs(frame),
            LinkType::PRISM_HEADER => {
                if self.rng.chance(20) {
                    return self.avs(frame);
                }
                let mut v = self.rng.bytes(144);
                v[0..4].copy_from_slice(&0x44u32.to_le_bytes());
                v.extend_from_slice(&frame);
                v
            }
            _ => frame,
        }
    }

    /// An AVS header: its cookie and version, its length (64, or another), fields.
    fn avs(&mut self, frame: Vec<u8>) -> Vec<u8> {
        let len: u32 = if self.rng.chance(90) {
            64
        } else {
            self.rng.below(160) as u32
        };
        let mut v = 0x8021_1001u32.to_be_bytes().to_vec();
        v.extend_from_slice(&len.to_be_bytes());
        v.extend_from_slice(&self.rng.bytes(56));
        v.extend_from_slice(&frame);
        v
    }

    /// A radiotap header (presence bits among TSFT, flags, rate, channel and
    /// signal; now and then a second presence word), then the frame, padded to 4
    /// after its header if the flags say so.
    fn radiotap(&mut self, frame: Vec<u8>, data_hdr: Option<usize>) -> Vec<u8> {
        let tsft = self.rng.chance(40);
        let flags = self.rng.chance(80);
        let ext = self.rng.chance(10);
        let mut present: u32 = 0x0000_0024; // rate, signal
        present |= u32::from(tsft) | u32::from(flags) << 1 | u32::from(ext) << 31;
        let mut v = vec![0u8, 0, 0, 0];
        v.extend_from_slice(&present.to_le_bytes());
        if ext {
            v.extend_from_slice(&0u32.to_le_bytes());
        }
        if tsft {
            while v.len() % 8 != 0 {
                v.push(0);
            }
            v.extend_from_slice(&self.rng.bytes(8));
        }
        let pad = flags && self.rng.chance(40);
        if flags {
            let f = self.rng.u8() & !0x20 | if pad { 0x20 } else { 0 };
            v.push(f);
        }
        v.push(self.rng.u8()); // rate
        v.push(self.rng.u8()); // signal
        let len = v.len() as u16;
        v[2..4].copy_from_slice(&len.to_le_bytes());
        match data_hdr {
            Some(n) if pad && n % 4 != 0 => {
                v.extend_from_slice(&frame[..n]);
                v.extend(std::iter::repeat_n(0, 4 - n % 4));
                v.extend_from_slice(&frame[n..]);
            }
            _ => v.extend_from_slice(&frame),
        }
        v
    }

    /// An 802.11 frame, and for a data frame its header's length.
    fn wlan_80211(&mut self) -> (Vec<u8>, Option<usize>) {
        let kind = self.rng.weighted(&[50, 25, 20, 5]);
        let fc0 = (self.rng.u8() & 0xf0)
            | match kind {
                0 => 0x08,
                1 => 0x00,
                2 => 0x04,
                _ => 0x0c,
            };
        let fc0 = if kind == 0 && self.rng.chance(40) {
            fc0 | 0x80
        } else {
            fc0
        };
        let dir = self.rng.below(4) as u8;
        let fc1 = if self.rng.chance(20) {
            self.rng.u8()
        } else {
            dir
        };
        let mut v = vec![fc0, fc1];
        v.extend_from_slice(&self.rng.bytes(2)); // duration
        if kind == 2 && self.rng.chance(50) {
            // CTS and ACK: one address.
            v.extend_from_slice(&self.mac());
            return (v, None);
        }
        for _ in 0..3 {
            v.extend_from_slice(&self.mac());
        }
        v.extend_from_slice(&self.rng.bytes(2)); // sequence
        if kind != 0 {
            v.extend_from_slice(&self.payload(80));
            return (v, None);
        }
        if fc1 & 0x03 == 0x03 {
            v.extend_from_slice(&self.mac());
        }
        if fc0 & 0x80 != 0 {
            v.extend_from_slice(&self.rng.bytes(2));
        }
        let hdr = v.len();
        match self.rng.weighted(&[70, 15, 15]) {
            0 => {
                let l3 = self.l3();
                v.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0]);
                v.extend_from_slice(&l3.ethertype.to_be_bytes());
                v.extend_from_slice(&l3.bytes);
            }
            1 => {
                let sap = *self.rng.pick(SAPS);
                v.extend_from_slice(&sap);
                let l3 = self.ip();
                v.extend_from_slice(&l3.bytes);
            }
            _ => v.extend_from_slice(&self.payload(100)),
        }
        (v, Some(hdr))
    }
}
