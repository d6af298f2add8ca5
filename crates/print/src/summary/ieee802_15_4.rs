//! IEEE 802.15.4 (tcpdump's `ieee802_15_4_if_print`), as far as the
//! addresses: the frame type and version, the sequence number with `-v`,
//! the PAN IDs and addresses by 802.15.4-2015's PAN ID compression rules,
//! after dropping a 4- or 2-byte FCS that checks. The auxiliary security
//! header, information elements and payloads are not decoded yet.

use super::{out, PResult, Printer, Trunc};

const FTYPES: [&str; 8] = [
    "Beacon",
    "Data",
    "ACK",
    "Command",
    "Reserved",
    "Multipurpose",
    "Fragment",
    "Extended",
];

/// The CRC-16 of 802.15.4 (ITU-T, initial 0, bits reflected in and out).
fn crc16(p: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in p {
        let y = b.reverse_bits();
        let mut x = ((crc >> 8) as u8) ^ y;
        x ^= x >> 4;
        crc = (crc << 8) ^ (u16::from(x) << 12) ^ (u16::from(x) << 5) ^ u16::from(x);
    }
    crc.reverse_bits().swap_bytes()
}

/// The CRC-32 of 802.15.4 (0x04C11DB7, initial 0, bits reflected in and out).
fn crc32(p: &[u8]) -> u32 {
    let mut crc: u32 = 0;
    for &b in p {
        let mut byte = u32::from(b).reverse_bits();
        for _ in 0..8 {
            crc = if (crc ^ byte) & 0x8000_0000 != 0 {
                (crc << 1) ^ 0x04C1_1DB7
            } else {
                crc << 1
            };
            byte <<= 1;
        }
    }
    crc.reverse_bits()
}

/// `ieee802_15_4_addr_len`: `None` for the reserved mode.
fn addr_len(mode: u16) -> Option<usize> {
    match mode {
        0 => Some(0),
        2 => Some(2),
        3 => Some(8),
        _ => None,
    }
}

impl Printer<'_> {
    /// `ieee802_15_4_print`.
    pub(super) fn ieee802_15_4_if(&mut self, data: &[u8], _length: u32) -> PResult {
        self.proto = "802.15.4";
        if data.len() < 2 {
            return Err(Trunc);
        }
        let fc = u16::from_le_bytes([data[0], data[1]]);
        let ftype = usize::from(fc & 7);
        out!(self, "IEEE 802.15.4 {} packet ", FTYPES[ftype]);
        if ftype <= 3 {
            self.ieee802_15_4_std(data, fc);
        }
        Ok(())
    }

    /// `ieee802_15_4_std_frames` up to the addresses.
    fn ieee802_15_4_std(&mut self, data: &[u8], fc: u16) {
        let mut cap = data.len();
        if cap >= 4 {
            let fcs4 = u32::from_le_bytes(data[cap - 4..].try_into().unwrap_or([0; 4]));
            if crc32(&data[..cap - 4]) == fcs4 {
                cap -= 4;
            } else if crc16(&data[..cap - 2]) == u16::from_le_bytes([data[cap - 2], data[cap - 1]])
            {
                cap -= 2;
            }
        }
        let version = (fc >> 12) & 3;
        out!(self, "v{version} ");
        let bit = |b: u16| (fc >> b) & 1 != 0;
        let mut at = if bit(8) {
            if version < 2 {
                self.out
                    .push_str("[ERROR: Sequence number suppressed on frames where version < 2]");
            }
            if self.opts.verbose > 0 {
                self.out.push_str("seq suppressed ");
            }
            2
        } else {
            if let Some(seq) = data.get(2).filter(|_| self.opts.verbose > 0) {
                out!(self, "seq {seq:02x} ");
            }
            if cap < 3 {
                self.trunc();
                return;
            }
            3
        };
        let (Some(dst_len), Some(src_len)) = (addr_len((fc >> 10) & 3), addr_len((fc >> 14) & 3))
        else {
            let which = if addr_len((fc >> 14) & 3).is_none() {
                "src"
            } else {
                "dst"
            };
            out!(self, "[ERROR: Invalid {which} address mode]");
            return;
        };
        let comp = bit(6);
        let (mut src_pan, mut dst_pan) = if comp { (false, true) } else { (true, true) };
        if version < 2 && comp && (dst_len == 0 || src_len == 0) {
            self.out.push_str(
                "[ERROR: PAN ID Compression != 0, and only one address with frame version < 2]",
            );
        }
        if dst_len == 0 {
            dst_pan = false;
        }
        if src_len == 0 {
            src_pan = false;
        }
        if version >= 2 {
            if comp {
                if src_len == 0 && dst_len == 0 {
                    dst_pan = true;
                } else if (src_len == 0) != (dst_len == 0) || (src_len == 8 && dst_len == 8) {
                    (dst_pan, src_pan) = (false, false);
                }
            } else if src_len == 8 && dst_len == 8 {
                (dst_pan, src_pan) = (true, false);
            } else if src_len == 8 && dst_len == 2 {
                // tcpdump defines BROKEN_6TISCH_PAN_ID_COMPRESSION (to 0,
                // but it tests whether it is defined).
                src_pan = false;
            }
        }
        for (pan, len, last) in [(dst_pan, dst_len, false), (src_pan, src_len, true)] {
            if pan {
                if cap < at + 2 {
                    self.out.push_str("[ERROR: Truncated before dst_pan]");
                    return;
                }
                out!(
                    self,
                    "{:04x}:",
                    u16::from_le_bytes([data[at], data[at + 1]])
                );
                at += 2;
            } else {
                self.out.push_str("-:");
            }
            if cap < at + len {
                self.out.push_str("[ERROR: Truncated before dst_addr]");
                return;
            }
            match len {
                0 => self.out.push_str("none"),
                2 => out!(self, "{:04x}", u16::from_le_bytes([data[at], data[at + 1]])),
                _ => {
                    let a: Vec<String> = data[at..at + 8]
                        .iter()
                        .rev()
                        .map(|b| format!("{b:02x}"))
                        .collect();
                    self.out.push_str(&a.join(":"));
                }
            }
            at += len;
            self.out.push_str(if last { " " } else { " < " });
        }
    }
}
