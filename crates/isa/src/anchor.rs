//! Anchors: the per-packet offset cache, made programmable.
//!
//! An anchor is a header offset that depends on the packet: where the TCP header
//! starts after a variable-length IPv4 header, where the inner Ethernet frame of a
//! Geneve tunnel starts. Each anchor is one 32-bit word:
//!
//! ```text
//!  31      24 23      16 15                 0
//! +----------+----------+--------------------+
//! |  rule    |  parent  |      offset        |
//! +----------+----------+--------------------+
//! ```
//!
//! The engine computes `h = value(parent) + offset`, then applies the rule to the bytes
//! at `h`. A parent must have a smaller index than its child, so an anchor table is a
//! forest and evaluating it is bounded. Anchor 0 is always the start of the packet; an
//! instruction addressing anchor 0 is "direct", one addressing an anchor that resolves
//! one variable header is "L1 indirect", two headers "L2 indirect", and so on.
//! The engine computes each anchor at most once per packet.

/// How an anchor turns the header found at `parent + offset` into an offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum AnchorRule {
    /// `h` itself: a constant displacement (used for offsets too large for an
    /// instruction's 11-bit offset field).
    Const = 0,
    /// IPv4: `h + 4 * (p[h] & 0x0f)`, the start of the transport header.
    Ipv4Payload = 1,
    /// TCP: `h + 4 * (p[h + 12] >> 4)`, the start of the TCP payload.
    TcpPayload = 2,
    /// Geneve: `h + 8 + 4 * (p[h] & 0x3f)`, the start of the encapsulated frame.
    GenevePayload = 3,
    /// IP header selected by the 16-bit type field just before it (`p[h-2..h]`):
    /// `h + 4 * (p[h] & 0x0f)` if that field is 0x0800 (Ethertype IPv4) or 0x0021 (PPP
    /// IPv4), else `h + 40` (a fixed IPv6 header). The end of the outer IP header that
    /// carries a Geneve tunnel over Ethernet, VLAN, Linux cooked v1 or PPP.
    IpPayloadByType = 4,
    /// IP header selected by its own version nibble: `h + 4 * (p[h] & 0x0f)` if
    /// `p[h] >> 4 == 4`, else `h + 40`.
    IpPayloadByVersion = 5,
    /// IP header selected by the 32-bit address family just before it (`p[h-4..h]`,
    /// BSD loopback): `h + 4 * (p[h] & 0x0f)` if it is 2 in either byte order, else
    /// `h + 40`.
    IpPayloadByAf = 6,
    /// Geneve, the inner link-type field: `h + 8 + 4 * (p[h] & 0x3f) + 12` if the
    /// protocol type `p[h+2..h+4]` is 0x6558 (an Ethernet frame follows), else `h + 2`
    /// (the protocol type itself).
    GeneveLinkType = 7,
    /// Geneve, the inner network header: `h + 8 + 4 * (p[h] & 0x3f)`, plus 14 if the
    /// protocol type `p[h+2..h+4]` is 0x6558 (skipping the inner Ethernet header).
    GeneveLinkPayload = 8,
    /// pflog: `h + ((p[h] + 3) & !3)`, the header's own length byte rounded up to 4:
    /// the start of the logged packet.
    PflogPayload = 9,
    /// radiotap and PPI: `h + (p[h+2] | p[h+3] << 8)`, the capture header's
    /// little-endian length: the start of the 802.11 header.
    RadiotapHdr = 10,
    /// AVS: `h + p[h+4..h+8]`, the header's big-endian length.
    AvsHdr = 11,
    /// Prism: `h + p[h+4..h+8]` if `p[h..h+4] & 0xfffff000` is 0x80211000 (an AVS
    /// header after all), else `h + 144`.
    PrismHdr = 12,
    /// 802.11 (`h` at its header): `h + 24`, plus 2 for a QoS data frame (frame
    /// control `p[h]` with type bits 0x08 and subtype bit 0x80): the LLC header.
    WlanPayload = 13,
    /// As `WlanPayload`, then for a data frame, rounded up to 4 if the radiotap
    /// header at the start of the packet says the driver padded the 802.11 header
    /// (its first presence word `p[4..8]` has the flags bit and no extension bit,
    /// and the flags byte, `p[16]` after a TSFT field or else `p[8]`, has 0x20).
    WlanPayloadPadded = 14,
}

impl AnchorRule {
    /// The rule with number `v`; `None` for a byte that names no rule.
    pub fn from_u8(v: u8) -> Option<AnchorRule> {
        Some(match v {
            0 => AnchorRule::Const,
            1 => AnchorRule::Ipv4Payload,
            2 => AnchorRule::TcpPayload,
            3 => AnchorRule::GenevePayload,
            4 => AnchorRule::IpPayloadByType,
            5 => AnchorRule::IpPayloadByVersion,
            6 => AnchorRule::IpPayloadByAf,
            7 => AnchorRule::GeneveLinkType,
            8 => AnchorRule::GeneveLinkPayload,
            9 => AnchorRule::PflogPayload,
            10 => AnchorRule::RadiotapHdr,
            11 => AnchorRule::AvsHdr,
            12 => AnchorRule::PrismHdr,
            13 => AnchorRule::WlanPayload,
            14 => AnchorRule::WlanPayloadPadded,
            _ => return None,
        })
    }

    /// The rule's name in the `-d` listing.
    pub fn name(self) -> &'static str {
        match self {
            AnchorRule::Const => "const",
            AnchorRule::Ipv4Payload => "ipv4-payload",
            AnchorRule::TcpPayload => "tcp-payload",
            AnchorRule::GenevePayload => "geneve-payload",
            AnchorRule::IpPayloadByType => "ip-payload-by-type",
            AnchorRule::IpPayloadByVersion => "ip-payload-by-version",
            AnchorRule::IpPayloadByAf => "ip-payload-by-af",
            AnchorRule::GeneveLinkType => "geneve-linktype",
            AnchorRule::GeneveLinkPayload => "geneve-linkpayload",
            AnchorRule::PflogPayload => "pflog-payload",
            AnchorRule::RadiotapHdr => "radiotap-len",
            AnchorRule::AvsHdr => "avs-len",
            AnchorRule::PrismHdr => "prism-len",
            AnchorRule::WlanPayload => "wlan-payload",
            AnchorRule::WlanPayloadPadded => "wlan-payload-pad",
        }
    }
}

/// One anchor-table entry, kept as its raw word so that any image can be stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Anchor(pub u32);

impl Anchor {
    /// The anchor that applies `rule` at `parent`'s value plus `offset`.
    pub fn new(rule: AnchorRule, parent: u8, offset: u16) -> Anchor {
        Anchor((rule as u32) << 24 | (parent as u32) << 16 | offset as u32)
    }
    /// The rule, or `None` for an undefined rule byte (such an anchor never resolves).
    pub fn rule(self) -> Option<AnchorRule> {
        AnchorRule::from_u8((self.0 >> 24) as u8)
    }
    /// The anchor this one is computed from.
    pub fn parent(self) -> u8 {
        (self.0 >> 16) as u8
    }
    /// Bytes added to the parent's value before the rule applies.
    pub fn offset(self) -> u16 {
        self.0 as u16
    }
}
