//! LMP's objects with `-v`, as tcpdump 4.99's `lmp_print` decodes each
//! class and C-type, and the data link subobjects.

use super::super::gmpls::{gmpls_encoding, gmpls_switch_cap, mbps};
use super::super::{bit_names, g1, g2, g4, gv4, gv6, out, PResult, Printer};

/// `lmp_obj_values`.
pub(super) fn class_name(class: u8) -> &'static str {
    match class {
        1 => "Control Channel ID",
        2 => "Node ID",
        3 => "Link ID",
        4 => "Interface ID",
        5 => "Message ID",
        6 => "Configuration",
        7 => "Hello",
        8 => "Verify Begin",
        9 => "Verify Begin ACK",
        10 => "Verify ID",
        11 => "TE Link",
        12 => "Data Link",
        13 => "Channel Status",
        14 => "Channel Status Request",
        20 => "Error Code",
        51 => "Service Config",
        _ => "Unknown",
    }
}

/// `lmp_ctype_values`: C-type names depend on the class.
pub(super) fn ctype_name(class: u8, ctype: u8) -> &'static str {
    match (class, ctype) {
        (1 | 2, 1) => "Local",
        (1 | 2, 2) => "Remote",
        (3 | 4, 1) => "IPv4 Local",
        (3 | 4, 2) => "IPv4 Remote",
        (3 | 4, 3) => "IPv6 Local",
        (3 | 4, 4) => "IPv6 Remote",
        (3 | 4, 5) => "Unnumbered Local",
        (3 | 4, 6) => "Unnumbered Remote",
        (5 | 20, 1) | (6..=10, 1) | (51, 1) => "1",
        (5 | 20, 2) | (51, 2) => "2",
        (51, 3) => "3",
        (51, 4) => "4",
        (11..=14, 1) => "IPv4",
        (11..=14, 2) => "IPv6",
        (11..=14, 3) => "Unnumbered",
        _ => "Unknown",
    }
}

const TE_LINK_FLAGS: &[(u32, &str)] = &[
    (0x01, "Fault Management Supported"),
    (0x02, "Link Verification Supported"),
];
const DATA_LINK_FLAGS: &[(u32, &str)] = &[
    (0x01, "Data Link Port"),
    (0x02, "Allocated for user traffic"),
    (0x04, "Failed link"),
];
const BEGIN_VERIFY_FLAGS: &[(u32, &str)] =
    &[(0x0001, "Verify all links"), (0x0002, "Data link type")];
const BEGIN_VERIFY_ERRORS: &[(u32, &str)] = &[
    (0x01, "Link Verification Procedure Not supported"),
    (0x02, "Unwilling to verify"),
    (0x04, "Unsupported verification transport mechanism"),
    (0x08, "Link-Id configuration error"),
    (0x10, "Unknown object c-type"),
];
const LINK_SUMMARY_ERRORS: &[(u32, &str)] = &[
    (0x01, "Unacceptable non-negotiable LINK-SUMMARY parameters"),
    (0x02, "Renegotiate LINK-SUMMARY parameters"),
    (0x04, "Invalid TE-LINK Object"),
    (0x08, "Invalid DATA-LINK Object"),
    (0x10, "Unknown TE-LINK Object c-type"),
    (0x20, "Unknown DATA-LINK Object c-type"),
];
const SP_FLAGS: &[(u32, &str)] = &[(0x01, "RSVP Supported"), (0x02, "LDP Supported")];
const CPSA_TP_FLAGS: &[(u32, &str)] = &[
    (0x01, "Path/VC Overhead Transparency Supported"),
    (0x02, "Line/MS Overhead Transparency Supported"),
    (0x04, "Section/RS Overhead Transparency Supported"),
];
const CPSA_CCT_FLAGS: &[(u32, &str)] = &[(0x01, "Contiguous Concatenation Types Supported")];
const NSA_TRANSPARENCY_FLAGS: &[(u32, &str)] = &[
    (0x01, "Standard SOH/RSOH Transparency Supported"),
    (0x02, "Standard LOH/MSOH Transparency Supported"),
];
const NSA_TCM_FLAGS: &[(u32, &str)] =
    &[(0x01, "Transparent Tandem Connection Monitoring Supported")];
const NSA_DIVERSITY_FLAGS: &[(u32, &str)] = &[
    (0x01, "Node Diversity Supported"),
    (0x02, "Link Diversity Supported"),
    (0x04, "SRLG Diversity Supported"),
];

/// `lmp_obj_channel_status_values`.
fn channel_status(v: u32) -> &'static str {
    match v {
        1 => "Signal Okay",
        2 => "Signal Degraded",
        3 => "Signal Fail",
        _ => "Unknown",
    }
}

/// How an interface or link identifier is written: an IPv4 address, an
/// IPv6 address or a number.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Id {
    V4,
    V6,
    Unnumbered,
}

impl Id {
    fn size(self) -> usize {
        if self == Id::V6 {
            16
        } else {
            4
        }
    }
}

impl Printer<'_> {
    /// The identifier at `at` of `o` as `%s (0x%08x)` or `%u (0x%08x)`.
    fn lmp_id(&self, o: &[u8], at: usize, id: Id) -> PResult<String> {
        let word = g4(o, at)?;
        let text = match id {
            Id::V4 => self.host4(gv4(o, at)?),
            Id::V6 => self.host6(gv6(o, at)?),
            Id::Unnumbered => word.to_string(),
        };
        Ok(format!("{text} (0x{word:08x})"))
    }

    /// One object's body `o` (captured past its `len` bytes as far as the
    /// packet is): whether tcpdump then dumps it in hex.
    pub(super) fn lmp_object(
        &mut self,
        class: u8,
        ctype: u8,
        o: &[u8],
        len: usize,
    ) -> PResult<bool> {
        // The body length each known class and C-type wants: `Some(n)` exactly,
        // and the C-types each class knows.
        let id = |c: u8| match c {
            1 => Some(Id::V4),
            2 => Some(Id::V6),
            3 => Some(Id::Unnumbered),
            _ => None,
        };
        let exact = |p: &mut Self, want: usize| {
            if len != want {
                out!(p, " (not correct for object)");
                false
            } else {
                true
            }
        };
        match (class, ctype) {
            (1, 1 | 2) => {
                if exact(self, 4) {
                    let v = g4(o, 0)?;
                    out!(self, "\n\t    Control Channel ID: {v} (0x{v:08x})");
                }
            }
            (3 | 4, 1..=6) => {
                let kind = [Id::V4, Id::V6, Id::Unnumbered][usize::from(ctype - 1) / 2];
                if exact(self, kind.size()) {
                    let label = match kind {
                        Id::V4 => "IPv4 Link ID",
                        Id::V6 => "IPv6 Link ID",
                        Id::Unnumbered => "Link ID",
                    };
                    let s = self.lmp_id(o, 0, kind)?;
                    out!(self, "\n\t    {label}: {s}");
                }
            }
            (5, 1 | 2) => {
                if exact(self, 4) {
                    let v = g4(o, 0)?;
                    let ack = if ctype == 2 { " Ack" } else { "" };
                    out!(self, "\n\t    Message ID{ack}: {v} (0x{v:08x})");
                }
            }
            (2, 1 | 2) => {
                if exact(self, 4) {
                    let s = self.lmp_id(o, 0, Id::V4)?;
                    out!(self, "\n\t    Node ID: {s}");
                }
            }
            (6, 1) => {
                if exact(self, 4) {
                    out!(
                        self,
                        "\n\t    Hello Interval: {}\n\t    Hello Dead Interval: {}",
                        g2(o, 0)?,
                        g2(o, 2)?
                    );
                }
            }
            (7, 1) => {
                if exact(self, 8) {
                    out!(self, "\n\t    Tx Seq: {}, Rx Seq: {}", g4(o, 0)?, g4(o, 4)?);
                }
            }
            (11, 1..=3) => {
                let kind = id(ctype).unwrap_or(Id::V4);
                if exact(self, 4 + 2 * kind.size()) {
                    out!(
                        self,
                        "\n\t    Flags: [{}]",
                        bit_names(u32::from(g1(o, 0)?), TE_LINK_FLAGS)
                    );
                    let (l, r) = (
                        self.lmp_id(o, 4, kind)?,
                        self.lmp_id(o, 4 + kind.size(), kind)?,
                    );
                    out!(
                        self,
                        "\n\t    Local Link-ID: {l}\n\t    Remote Link-ID: {r}"
                    );
                }
            }
            (12, 1..=3) => {
                let kind = id(ctype).unwrap_or(Id::V4);
                let fixed = 4 + 2 * kind.size();
                if len < fixed {
                    out!(self, " (not correct for object)");
                } else {
                    out!(
                        self,
                        "\n\t    Flags: [{}]",
                        bit_names(u32::from(g1(o, 0)?), DATA_LINK_FLAGS)
                    );
                    let (l, r) = (
                        self.lmp_id(o, 4, kind)?,
                        self.lmp_id(o, 4 + kind.size(), kind)?,
                    );
                    out!(
                        self,
                        "\n\t    Local Interface ID: {l}\n\t    Remote Interface ID: {r}"
                    );
                    return self.lmp_subobjs(o, len - fixed, fixed);
                }
            }
            (8, 1) => {
                if exact(self, 20) {
                    self.lmp_verify_begin(o)?;
                }
            }
            (9, 1) => {
                if exact(self, 4) {
                    out!(
                        self,
                        "\n\t    Verify Dead Interval: {}\n\t    Verify Transport Response: {}",
                        g2(o, 0)?,
                        g2(o, 2)?
                    );
                }
            }
            (10, 1) => {
                if exact(self, 4) {
                    out!(self, "\n\t    Verify ID: {}", g4(o, 0)?);
                }
            }
            (13, 1..=3) => {
                let kind = id(ctype).unwrap_or(Id::V4);
                let mut at = 0;
                while at + kind.size() + 4 <= len {
                    let s = self.lmp_id(o, at, kind)?;
                    out!(self, "\n\t    Interface ID: {s}");
                    let st = g4(o, at + kind.size())?;
                    out!(
                        self,
                        "\n\t\t    Active: {} ({})",
                        if st >> 31 != 0 {
                            "Allocated"
                        } else {
                            "Non-allocated"
                        },
                        st >> 31
                    );
                    let dir = (st >> 30) & 1;
                    out!(
                        self,
                        "\n\t\t    Direction: {} ({dir})",
                        if dir != 0 { "Transmit" } else { "Receive" }
                    );
                    let cs = st & 0x3ff_ffff;
                    out!(
                        self,
                        "\n\t\t    Channel Status: {} ({cs})",
                        channel_status(cs)
                    );
                    at += kind.size() + 4;
                }
            }
            (14, 1..=3) => {
                let kind = id(ctype).unwrap_or(Id::V4);
                let mut at = 0;
                while at + kind.size() <= len {
                    let s = self.lmp_id(o, at, kind)?;
                    out!(self, "\n\t    Interface ID: {s}");
                    at += kind.size();
                }
            }
            (20, 1 | 2) => {
                if exact(self, 4) {
                    let names = if ctype == 1 {
                        BEGIN_VERIFY_ERRORS
                    } else {
                        LINK_SUMMARY_ERRORS
                    };
                    out!(self, "\n\t    Error Code: {}", bit_names(g4(o, 0)?, names));
                }
            }
            (51, 1..=4) => self.lmp_service_config(ctype, o, len)?,
            (1..=14 | 20 | 51, _) => return Ok(true),
            _ => {
                if self.opts.verbose <= 1 {
                    self.unknown_data(o, 0, len, "\n\t    ");
                }
            }
        }
        Ok(false)
    }

    /// The Verify Begin object (C-type 1).
    fn lmp_verify_begin(&mut self, o: &[u8]) -> PResult {
        out!(
            self,
            "\n\t    Flags: {}",
            bit_names(u32::from(g2(o, 0)?), BEGIN_VERIFY_FLAGS)
        );
        out!(self, "\n\t    Verify Interval: {}", g2(o, 2)?);
        out!(self, "\n\t    Data links: {}", g4(o, 4)?);
        out!(self, "\n\t    Encoding type: {}", gmpls_encoding(g1(o, 8)?));
        let m = g2(o, 10)?;
        // tcpdump tests the decimal 8000, not 0x8000.
        let capable = if m & 8000 != 0 {
            " (Payload test messages capable)"
        } else {
            ""
        };
        out!(
            self,
            "\n\t    Verify Transport Mechanism: {m} (0x{m:x}){capable}"
        );
        out!(self, "\n\t    Transmission Rate: {} Mbps", mbps(g4(o, 12)?));
        out!(self, "\n\t    Wavelength: {}", g4(o, 16)?);
        Ok(())
    }

    /// The Service Config object of UNI 1.0, C-types 1 to 4.
    fn lmp_service_config(&mut self, ctype: u8, o: &[u8], len: usize) -> PResult {
        let want = [4, 16, 8, 4][usize::from(ctype - 1)];
        if len != want {
            out!(self, " (not correct for object)");
            return Ok(());
        }
        match ctype {
            1 => {
                out!(
                    self,
                    "\n\t Flags: {}",
                    bit_names(u32::from(g1(o, 0)?), SP_FLAGS)
                );
                out!(self, "\n\t  UNI Version: {}", g1(o, 1)?);
            }
            2 => {
                let link = g1(o, 0)?;
                let name = match link {
                    5 => "SDH ITU-T G.707",
                    6 => "SONET ANSI T1.105",
                    _ => "Unknown",
                };
                out!(self, "\n\t Link Type: {name} ({link})");
                if link == 5 || link == 6 {
                    let s = g1(o, 1)?;
                    let names: [&str; 8] = if link == 5 {
                        [
                            "VC-3", "VC-4", "STM-0", "STM-1", "STM-4", "STM-16", "STM-64",
                            "STM-256",
                        ]
                    } else {
                        [
                            "STS-1 SPE",
                            "STS-3c SPE",
                            "STS-1",
                            "STM-3",
                            "STM-12",
                            "STM-48",
                            "STM-192",
                            "STM-768",
                        ]
                    };
                    let n = match s {
                        5..=12 => names[usize::from(s - 5)],
                        _ => "Unknown",
                    };
                    out!(self, "\n\t Signal Type: {n} ({s})");
                }
                out!(
                    self,
                    "\n\t Transparency: {}",
                    bit_names(u32::from(g1(o, 2)?), CPSA_TP_FLAGS)
                );
                out!(
                    self,
                    "\n\t Contiguous Concatenation Types: {}",
                    bit_names(u32::from(g1(o, 3)?), CPSA_CCT_FLAGS)
                );
                out!(self, "\n\t Minimum NCC: {}", g2(o, 4)?);
                out!(self, "\n\t Maximum NCC: {}", g2(o, 6)?);
                out!(self, "\n\t Minimum NVC:{}", g2(o, 8)?);
                out!(self, "\n\t Maximum NVC:{}", g2(o, 10)?);
                let s = self.lmp_id(o, 12, Id::V4)?;
                out!(self, "\n\t    Local Interface ID: {s}");
            }
            3 => {
                out!(
                    self,
                    "\n\t Transparency Flags: {}",
                    bit_names(g4(o, 0)?, NSA_TRANSPARENCY_FLAGS)
                );
                out!(
                    self,
                    "\n\t TCM Monitoring Flags: {}",
                    bit_names(u32::from(g1(o, 7)?), NSA_TCM_FLAGS)
                );
            }
            _ => {
                out!(
                    self,
                    "\n\t Diversity: Flags: {}",
                    bit_names(u32::from(g1(o, 3)?), NSA_DIVERSITY_FLAGS)
                );
            }
        }
        Ok(())
    }

    /// `lmp_print_data_link_subobjs`: `total` bytes of subobjects from
    /// `offset` of `o`; whether an unknown one asks for the hex dump.
    fn lmp_subobjs(&mut self, o: &[u8], total: usize, mut offset: usize) -> PResult<bool> {
        let mut total = total as i64;
        while total > 0 {
            let t = g1(o, offset)?;
            let l = g1(o, offset + 1)?;
            let name = match t {
                1 => "Interface Switching Type",
                2 => "Wavelength",
                _ => "Unknown",
            };
            out!(self, "\n\t    Subobject, Type: {name} ({t}), Length: {l}");
            if l < 4 {
                out!(self, " (too short)");
                break;
            }
            if l % 4 != 0 {
                out!(self, " (not a multiple of 4)");
                break;
            }
            if total < i64::from(l) {
                out!(self, " (goes past the end of the object)");
                break;
            }
            match t {
                1 => {
                    let sw = g1(o, offset + 2)?;
                    out!(
                        self,
                        "\n\t      Switching Type: {} ({sw})",
                        gmpls_switch_cap(sw)
                    );
                    let enc = g1(o, offset + 3)?;
                    out!(
                        self,
                        "\n\t      Encoding Type: {} ({enc})",
                        gmpls_encoding(enc)
                    );
                    out!(
                        self,
                        "\n\t      Min Reservable Bandwidth: {} Mbps",
                        mbps(g4(o, offset + 4)?)
                    );
                    out!(
                        self,
                        "\n\t      Max Reservable Bandwidth: {} Mbps",
                        mbps(g4(o, offset + 8)?)
                    );
                }
                2 => out!(self, "\n\t      Wavelength: {}", g4(o, offset + 4)?),
                _ => return Ok(true),
            }
            total -= i64::from(l);
            offset += usize::from(l);
        }
        Ok(false)
    }
}
