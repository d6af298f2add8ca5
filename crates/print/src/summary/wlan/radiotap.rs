//! The radiotap capture header (tcpdump's `ieee802_11_radio_print`): a chain of
//! little-endian presence bitmaps, then the fields they name, each aligned to
//! its own size from the start of the header. tcpdump prints the fields it
//! knows of the default namespace, stops at the first it does not know (`[bit
//! N] `: its size is unknown, so nothing after it can be found), and skips
//! vendor namespaces by their skip length. Reads never go past the header's
//! own length.

use super::super::{out, Printer};
use super::text::HT_RATES;

const TSFT: u32 = 0;
const FLAGS: u32 = 1;
const RATE: u32 = 2;
const CHANNEL: u32 = 3;
const FHSS: u32 = 4;
const DBM_ANTSIGNAL: u32 = 5;
const DBM_ANTNOISE: u32 = 6;
const LOCK_QUALITY: u32 = 7;
const TX_ATTENUATION: u32 = 8;
const DB_TX_ATTENUATION: u32 = 9;
const DBM_TX_POWER: u32 = 10;
const ANTENNA: u32 = 11;
const DB_ANTSIGNAL: u32 = 12;
const DB_ANTNOISE: u32 = 13;
const RX_FLAGS: u32 = 14;
const XCHANNEL: u32 = 18;
const MCS: u32 = 19;
const AMPDU_STATUS: u32 = 20;
const VHT: u32 = 21;
const NAMESPACE: u32 = 29;
const VENDOR_NAMESPACE: u32 = 30;
const EXT: u32 = 31;

/// Flags field bits.
const F_CFP: u8 = 0x01;
const F_SHORTPRE: u8 = 0x02;
const F_WEP: u8 = 0x04;
const F_FRAG: u8 = 0x08;
pub(super) const F_FCS: u8 = 0x10;
pub(super) const F_DATAPAD: u8 = 0x20;
const F_BADFCS: u8 = 0x40;

/// Channel flags.
const CHAN_TURBO: u32 = 0x10;
const CHAN_CCK: u32 = 0x20;
const CHAN_OFDM: u32 = 0x40;
const CHAN_2GHZ: u32 = 0x80;
const CHAN_5GHZ: u32 = 0x100;
const CHAN_DYN: u32 = 0x400;
const CHAN_GFSK: u32 = 0x800;
const CHAN_HALF: u32 = 0x4000;
const CHAN_QUARTER: u32 = 0x8000;
const CHAN_HT20: u32 = 0x10000;
const CHAN_HT40U: u32 = 0x20000;
const CHAN_HT40D: u32 = 0x40000;

const HT_BANDWIDTH: [&str; 4] = ["20 MHz", "40 MHz", "20 MHz (L)", "20 MHz (U)"];
const VHT_BANDWIDTH: [&str; 32] = [
    "20 MHz",
    "40 MHz",
    "20 MHz (L)",
    "20 MHz (U)",
    "80 MHz",
    "80 MHz (L)",
    "80 MHz (U)",
    "80 MHz (LL)",
    "80 MHz (LU)",
    "80 MHz (UL)",
    "80 MHz (UU)",
    "160 MHz",
    "160 MHz (L)",
    "160 MHz (U)",
    "160 MHz (LL)",
    "160 MHz (LU)",
    "160 MHz (UL)",
    "160 MHz (UU)",
    "160 MHz (LLL)",
    "160 MHz (LLU)",
    "160 MHz (LUL)",
    "160 MHz (UUU)",
    "160 MHz (ULL)",
    "160 MHz (ULU)",
    "160 MHz (UUL)",
    "160 MHz (UUU)",
    "unknown (26)",
    "unknown (27)",
    "unknown (28)",
    "unknown (29)",
    "unknown (30)",
    "unknown (31)",
];

/// tcpdump's `cpack_state`: a cursor over the header whose reads align to
/// their size and fail past the header's length.
struct Cpack<'a> {
    buf: &'a [u8],
    next: usize,
}

/// A field ran past the header.
struct Short;

impl Cpack<'_> {
    fn reserve(&self, size: usize) -> Result<usize, Short> {
        let at = self.next.div_ceil(size) * size;
        if at + size > self.buf.len() {
            return Err(Short);
        }
        Ok(at)
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], Short> {
        let at = self.reserve(N)?;
        self.next = at + N;
        let mut v = [0u8; N];
        v.copy_from_slice(&self.buf[at..at + N]);
        Ok(v)
    }

    fn u8(&mut self) -> Result<u8, Short> {
        self.take::<1>().map(|[b]| b)
    }

    fn u16(&mut self) -> Result<u16, Short> {
        self.take().map(u16::from_le_bytes)
    }

    fn u32(&mut self) -> Result<u32, Short> {
        self.take().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Result<u64, Short> {
        self.take().map(u64::from_le_bytes)
    }

    fn advance(&mut self, n: usize) -> Result<(), Short> {
        if self.next + n > self.buf.len() {
            return Err(Short);
        }
        self.next += n;
        Ok(())
    }
}

/// How printing a field ended: a truncation (marker printed) or an unknown
/// field, both of which end the header.
enum Stop {
    Short,
    Unknown,
}

impl From<Short> for Stop {
    fn from(_: Short) -> Stop {
        Stop::Short
    }
}

/// What the radiotap header tells the 802.11 printer.
pub(super) struct Radiotap {
    /// The header's length.
    pub len: usize,
    /// The Flags field (0 when absent).
    pub flags: u8,
}

impl Printer<'_> {
    /// Prints the radiotap header of `p`; `None` when it is cut short (the
    /// marker printed), else its length and flags.
    pub(super) fn radiotap(&mut self, p: &[u8]) -> Option<Radiotap> {
        self.proto = "802.11_radio";
        if p.len() < 8 {
            self.trunc();
            return None;
        }
        let len = usize::from(u16::from_le_bytes([p[2], p[3]]));
        if len < 8 || p.len() < len {
            self.trunc();
            return None;
        }
        let word = |i: usize| u32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
        let mut cp = Cpack {
            buf: &p[..len],
            next: 8,
        };
        // The bitmaps: each with EXT set is followed by another.
        let mut last = 4;
        while last + 4 <= len && word(last) & (1 << EXT) != 0 {
            last += 4;
            cp.next += 4;
        }
        if last + 4 > len {
            self.trunc();
            return None;
        }
        let mut bit0 = 0u32;
        let mut vendor = false;
        let mut skip = 0usize;
        let mut flags = 0u8;
        for at in (4..=last).step_by(4) {
            let present = word(at);
            if vendor {
                if cp.advance(skip).is_err() {
                    break;
                }
                skip = 0;
            } else if self.namespace(&mut cp, &mut flags, present, bit0).is_err() {
                break;
            }
            match present & (1 << NAMESPACE | 1 << VENDOR_NAMESPACE) {
                0 => bit0 += 32,
                x if x == 1 << NAMESPACE => {
                    (bit0, vendor, skip) = (0, false, 0);
                }
                x if x == 1 << VENDOR_NAMESPACE => {
                    (bit0, vendor) = (0, true);
                    // tcpdump checks the alignment's room, then reads the
                    // OUI and sub-namespace from where it is, then the skip
                    // length.
                    let fields = cp.reserve(2).and_then(|_| {
                        cp.advance(4)?;
                        cp.u16()
                    });
                    match fields {
                        Ok(s) => skip = usize::from(s),
                        Err(Short) => self.trunc(),
                    }
                }
                _ => {}
            }
        }
        Some(Radiotap { len, flags })
    }

    /// `print_in_radiotap_namespace`: the fields of one presence word.
    fn namespace(
        &mut self,
        cp: &mut Cpack,
        flags: &mut u8,
        present: u32,
        bit0: u32,
    ) -> Result<(), Stop> {
        for bitno in 0..NAMESPACE {
            if present & (1 << bitno) != 0 {
                self.field(cp, bit0 + bitno, flags, present)
                    .inspect_err(|e| {
                        if matches!(e, Stop::Short) {
                            self.trunc();
                        }
                    })?;
            }
        }
        Ok(())
    }

    /// `print_radiotap_field`.
    fn field(&mut self, s: &mut Cpack, bit: u32, flags: &mut u8, present: u32) -> Result<(), Stop> {
        match bit {
            TSFT => out!(self, "{}us tsft ", s.u64()?),
            FLAGS => {
                let f = s.u8()?;
                *flags = f;
                for (b, name) in [
                    (F_CFP, "cfp "),
                    (F_SHORTPRE, "short preamble "),
                    (F_WEP, "wep "),
                    (F_FRAG, "fragmented "),
                    (F_BADFCS, "bad-fcs "),
                ] {
                    if f & b != 0 {
                        self.out.push_str(name);
                    }
                }
            }
            RATE => {
                let r = s.u8()?;
                if (0x80..=0x8f).contains(&r) {
                    out!(self, "MCS {} ", r & 0x7f);
                } else {
                    out!(self, "{:.1} Mb/s ", 0.5 * f64::from(r));
                }
            }
            CHANNEL => {
                let freq = s.u16()?;
                let f = s.u16()?;
                if present & (1 << XCHANNEL) == 0 {
                    self.chaninfo(freq, u32::from(f), present);
                }
            }
            FHSS => {
                let (set, pat) = (s.u8()?, s.u8()?);
                out!(self, "fhset {set} fhpat {pat} ");
            }
            DBM_ANTSIGNAL => out!(self, "{}dBm signal ", s.u8()? as i8),
            DBM_ANTNOISE => out!(self, "{}dBm noise ", s.u8()? as i8),
            LOCK_QUALITY => out!(self, "{} sq ", s.u16()?),
            TX_ATTENUATION => out!(self, "{} tx power ", -i32::from(s.u16()? as i16)),
            // tcpdump reads this 16-bit field as one signed byte.
            DB_TX_ATTENUATION => out!(self, "{}dB tx attenuation ", -i32::from(s.u8()? as i8)),
            DBM_TX_POWER => out!(self, "{}dBm tx power ", s.u8()? as i8),
            ANTENNA => out!(self, "antenna {} ", s.u8()?),
            DB_ANTSIGNAL => out!(self, "{}dB signal ", s.u8()?),
            DB_ANTNOISE => out!(self, "{}dB noise ", s.u8()?),
            RX_FLAGS => {
                s.u16()?;
            }
            XCHANNEL => {
                let f = s.u32()?;
                let freq = s.u16()?;
                s.u8()?;
                s.u8()?;
                self.chaninfo(freq, f, present);
            }
            MCS => self.mcs(s.u8()?, s.u8()?, s.u8()?),
            AMPDU_STATUS => {
                s.u32()?;
                s.u16()?;
                s.u8()?;
                s.u8()?;
            }
            VHT => {
                let known = s.u16()?;
                let f = s.u8()?;
                let bw = s.u8()?;
                let mut mcs_nss = [0u8; 4];
                for m in &mut mcs_nss {
                    *m = s.u8()?;
                }
                let coding = s.u8()?;
                s.u8()?;
                s.u16()?;
                for (i, m) in mcs_nss.iter().enumerate() {
                    if m & 0x0f == 0 {
                        continue;
                    }
                    let fec = if coding & (1 << i) != 0 {
                        "LDPC"
                    } else {
                        "BCC"
                    };
                    out!(self, "User {i} MCS {} {fec} FEC ", m >> 4);
                }
                if known & 0x40 != 0 {
                    out!(self, "{} ", VHT_BANDWIDTH[usize::from(bw & 0x1f)]);
                }
                if known & 0x04 != 0 {
                    out!(self, "{} GI ", if f & 0x04 != 0 { "short" } else { "long" });
                }
            }
            _ => {
                out!(self, "[bit {bit}] ");
                return Err(Stop::Unknown);
            }
        }
        Ok(())
    }

    /// The MCS field: known bits, flags, index.
    fn mcs(&mut self, known: u8, f: u8, index: u8) {
        if known & 0x02 != 0 {
            let rate = match HT_RATES.get(usize::from(index)) {
                Some(r) if known & 0x05 != 0 => {
                    r[usize::from(f & 3 == 1)][usize::from(f & 0x04 != 0)]
                }
                _ => 0.0,
            };
            if rate != 0.0 {
                out!(self, "{rate:.1} Mb/s MCS {index} ");
            } else {
                out!(self, "MCS {index} ");
            }
        }
        if known & 0x01 != 0 {
            out!(self, "{} ", HT_BANDWIDTH[usize::from(f & 3)]);
        }
        if known & 0x04 != 0 {
            out!(self, "{} GI ", if f & 0x04 != 0 { "short" } else { "long" });
        }
        if known & 0x08 != 0 {
            let fmt = if f & 0x08 != 0 { "greenfield" } else { "mixed" };
            out!(self, "{fmt} ");
        }
        if known & 0x10 != 0 {
            out!(self, "{} FEC ", if f & 0x10 != 0 { "LDPC" } else { "BCC" });
        }
        if known & 0x20 != 0 {
            out!(self, "RX-STBC{} ", (f & 0x60) >> 5);
        }
    }

    /// `print_chaninfo`.
    fn chaninfo(&mut self, freq: u16, f: u32, present: u32) {
        let is = |m: u32| f & m == m;
        out!(self, "{freq} MHz");
        if present & (1 << MCS) != 0 {
            self.out.push_str(" 11n");
        } else {
            if is(CHAN_2GHZ | CHAN_GFSK) {
                self.out.push_str(" FHSS");
            }
            let width = if f & CHAN_HALF != 0 {
                "/10Mhz"
            } else if f & CHAN_QUARTER != 0 {
                "/5Mhz"
            } else {
                ""
            };
            if is(CHAN_5GHZ | CHAN_OFDM) {
                out!(self, " 11a{width}");
            }
            if is(CHAN_2GHZ | CHAN_OFDM) || is(CHAN_2GHZ | CHAN_DYN) {
                out!(self, " 11g{width}");
            } else if is(CHAN_2GHZ | CHAN_CCK) {
                self.out.push_str(" 11b");
            }
            if f & CHAN_TURBO != 0 {
                self.out.push_str(" Turbo");
            }
        }
        if f & CHAN_HT20 != 0 {
            self.out.push_str(" ht/20");
        } else if f & CHAN_HT40D != 0 {
            self.out.push_str(" ht/40-");
        } else if f & CHAN_HT40U != 0 {
            self.out.push_str(" ht/40+");
        }
        self.out.push(' ');
    }
}
