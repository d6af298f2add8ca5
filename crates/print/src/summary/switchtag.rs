//! Ethernet with a switch tag: Marvell DSA and EDSA (tcpdump's `print-dsa.c`)
//! and Broadcom tags (`print-brcmtag.c`), inside the header after the
//! addresses or, for `DSA_TAG_BRCM_PREPEND`, before the whole frame. Without
//! `-e` the tag's short form leads the line (`DSA Forward port 0.1, VLAN 0u, `);
//! with `-e` its fields follow the addresses.

use super::{need, out, tail, PResult, Printer, Trunc};

pub(super) const DSA_TAG_BRCM: u32 = 281;
pub(super) const DSA_TAG_DSA: u32 = 284;
pub(super) const DSA_TAG_EDSA: u32 = 285;

const BRCM_TAG_LEN: usize = 4;

const MODE_TO_CPU: u8 = 0;
const MODE_FROM_CPU: u8 = 1;
const MODE_TO_SNIFFER: u8 = 2;
const MODE_FORWARD: u8 = 3;

/// The DSA tag's fields (tcpdump's `DSA_*` macros) of the 4 bytes at `t`.
struct Dsa {
    mode: u8,
    tagged: bool,
    dev: u8,
    port: u8,
    /// Trunk for a forwarded frame, ingress for a sniffed one.
    trunk: bool,
    cfi: bool,
    pri: u8,
    vid: u16,
    code: u8,
}

fn dsa(t: &[u8]) -> Dsa {
    Dsa {
        mode: t[0] >> 6,
        tagged: t[0] & 0x20 != 0,
        dev: t[0] & 0x1f,
        port: t[1] >> 3,
        trunk: t[1] & 0x04 != 0,
        cfi: t[1] & 0x01 != 0,
        pri: t[2] >> 5,
        vid: (u16::from(t[2] & 0x0f) << 8) | u16::from(t[3]),
        code: (((t[1] & 0x06) >> 1) << 1) | ((t[2] & 0x10) >> 4),
    }
}

impl Printer<'_> {
    /// The four link types with switch tags; `lt` is the link type's number.
    pub(super) fn switch_tag_if(&mut self, lt: u32, data: &[u8], length: u32) -> PResult {
        match lt {
            DSA_TAG_DSA => {
                self.proto = "dsa";
                self.ether_tagged(data, length, Some((4, |p, t| p.dsa_tag(t))))
            }
            DSA_TAG_EDSA => {
                self.proto = "edsa";
                self.ether_tagged(data, length, Some((8, |p, t| p.edsa_tag(t))))
            }
            DSA_TAG_BRCM => {
                self.proto = "brcm-tag";
                self.ether_tagged(data, length, Some((BRCM_TAG_LEN, |p, t| p.brcm_tag(t))))
            }
            // DSA_TAG_BRCM_PREPEND (282).
            _ => {
                self.proto = "brcm-tag-prepend";
                need(data, 0, BRCM_TAG_LEN)?;
                if self.opts.link_header {
                    self.brcm_tag(data);
                }
                let rest = length.checked_sub(BRCM_TAG_LEN as u32).ok_or(Trunc)?;
                self.ether(tail(data, BRCM_TAG_LEN), rest)
            }
        }
    }

    /// `dsa_tag_print`.
    fn dsa_tag(&mut self, t: &[u8]) {
        let e = self.opts.link_header;
        self.out.push_str(if e { "Marvell DSA " } else { "DSA " });
        self.dsa_common(t);
    }

    /// `edsa_tag_print`: an EtherType and two reserved bytes before the DSA tag.
    fn edsa_tag(&mut self, t: &[u8]) {
        let et = u16::from_be_bytes([t[0], t[1]]);
        if self.opts.link_header {
            let name = netsift_wire::ethernet::EtherType(et)
                .name()
                .unwrap_or("Unknown");
            out!(self, "Marvell EDSA ethertype 0x{et:04x} ({name}), ");
            out!(self, "rsvd {} {}, ", t[2], t[3]);
        } else {
            out!(self, "EDSA 0x{et:04x}, ");
        }
        self.dsa_common(&t[4..]);
    }

    /// `tag_common_print`.
    fn dsa_common(&mut self, t: &[u8]) {
        let d = dsa(t);
        let (dev, port) = (d.dev, d.port);
        if self.opts.link_header {
            let mode = match d.mode {
                MODE_TO_CPU => "To CPU",
                MODE_FROM_CPU => "From CPU",
                MODE_TO_SNIFFER => "To Sniffer",
                _ => "Forward",
            };
            out!(self, "mode {mode}, ");
            match d.mode {
                MODE_FORWARD => {
                    let kind = if d.trunk { "trunk" } else { "port" };
                    out!(self, "dev {dev}, {kind} {port}, ");
                }
                MODE_FROM_CPU => out!(self, "target dev {dev}, port {port}, "),
                MODE_TO_CPU => {
                    let code = match d.code {
                        0 => "BPDU (MGMT) Trap",
                        1 => "Frame2Reg",
                        2 => "IGMP/MLD Trap",
                        3 => "Policy Trap",
                        4 => "ARP Mirror",
                        5 => "Policy Mirror",
                        _ => "reserved",
                    };
                    out!(self, "source dev {dev}, port {port}, code {code}, ");
                }
                _ => {
                    let dir = if d.trunk { "ingress" } else { "egress" };
                    out!(self, "source dev {dev}, port {port}, {dir} sniff, ");
                }
            }
            out!(self, "{}, ", if d.tagged { "tagged" } else { "untagged" });
            if d.cfi {
                self.out.push_str("CFI, ");
            }
            out!(self, "VID {}, FPri {}, ", d.vid, d.pri);
        } else {
            match d.mode {
                MODE_FORWARD => {
                    let kind = if d.trunk { "trunk" } else { "port" };
                    out!(self, "Forward {kind} {dev}.{port}, ");
                }
                MODE_FROM_CPU => out!(self, "CPU > port {dev}.{port}, "),
                MODE_TO_CPU => out!(self, "port {dev}.{port} > CPU, "),
                _ => {
                    let dir = if d.trunk { "Rx" } else { "Tx" };
                    out!(self, "port {dev}.{port} > {dir} Sniffer, ");
                }
            }
            out!(self, "VLAN {}{}, ", d.vid, if d.tagged { 't' } else { 'u' });
        }
    }

    /// `brcm_tag_print`.
    fn brcm_tag(&mut self, t: &[u8]) {
        out!(self, "BRCM tag OP: {}", if t[0] != 0 { "IG" } else { "EG" });
        if t[0] & 0x20 != 0 {
            let te = ["None", "Untag", "Header", "Reserved"][usize::from(t[1] & 3)];
            out!(
                self,
                ", TC: {}, TE: {te}, TS: {}",
                (t[1] >> 2) & 7,
                t[1] >> 7
            );
            let map = (u16::from(t[2]) << 8 | u16::from(t[3])) & 0x1ff;
            out!(self, ", DST map: 0x{map:04x}");
        } else {
            let rc = match t[2] {
                1 => "mirror",
                2 => "MAC learning",
                4 => "switching",
                8 => "prot term",
                16 => "prot snoop",
                32 => "exception",
                _ => "reserved",
            };
            out!(self, ", CID: {}, RC: {rc}", t[1]);
            out!(self, ", TC: {}, port: {}", (t[3] >> 5) & 7, t[3] & 0x1f);
        }
        self.out.push_str(", ");
    }
}
