//! Link-layer header types, as the LINKTYPE_* numbers of the pcap and pcapng formats.

use std::fmt;

/// A LINKTYPE_* value as stored in a pcap header or a pcapng interface block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkType(pub u32);

impl LinkType {
    /// BSD loopback: a 4-byte address family in host byte order of the capturing machine.
    pub const NULL: LinkType = LinkType(0);
    /// Ethernet (10Mb and up).
    pub const EN10MB: LinkType = LinkType(1);
    /// Raw IPv4 or IPv6, version read from the first nibble.
    pub const RAW: LinkType = LinkType(101);
    /// OpenBSD loopback: a 4-byte address family in network byte order.
    pub const LOOP: LinkType = LinkType(108);
    /// Linux "cooked" capture, version 1 (16-byte header).
    pub const LINUX_SLL: LinkType = LinkType(113);
    /// Raw IPv4 only.
    pub const IPV4: LinkType = LinkType(228);
    /// Raw IPv6 only.
    pub const IPV6: LinkType = LinkType(229);
    /// Linux "cooked" capture, version 2 (20-byte header).
    pub const LINUX_SLL2: LinkType = LinkType(276);

    /// The link types the filter compiler supports.
    pub const SUPPORTED: [LinkType; 8] = [
        Self::NULL,
        Self::EN10MB,
        Self::RAW,
        Self::LOOP,
        Self::LINUX_SLL,
        Self::IPV4,
        Self::IPV6,
        Self::LINUX_SLL2,
    ];

    /// libpcap's description of the link type (`pcap_datalink_val_to_description`),
    /// which tcpdump prints after the name: `link-type EN10MB (Ethernet)`.
    pub fn description(self) -> Option<&'static str> {
        Some(match self {
            Self::NULL => "BSD loopback",
            Self::EN10MB => "Ethernet",
            Self::RAW => "Raw IP",
            Self::LOOP => "OpenBSD loopback",
            Self::LINUX_SLL => "Linux cooked v1",
            Self::IPV4 => "Raw IPv4",
            Self::IPV6 => "Raw IPv6",
            Self::LINUX_SLL2 => "Linux cooked v2",
            _ => return None,
        })
    }

    /// The name and description as tcpdump prints them after `link-type`:
    /// `EN10MB (Ethernet)`, or the bare name when libpcap has no description.
    pub fn with_description(self) -> String {
        match self.description() {
            Some(d) => format!("{self} ({d})"),
            None => self.to_string(),
        }
    }

    /// The libpcap name of this link type (`EN10MB`, `RAW`, ...), if netsift knows it.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Self::NULL => "NULL",
            Self::EN10MB => "EN10MB",
            Self::RAW => "RAW",
            Self::LOOP => "LOOP",
            Self::LINUX_SLL => "LINUX_SLL",
            Self::IPV4 => "IPV4",
            Self::IPV6 => "IPV6",
            Self::LINUX_SLL2 => "LINUX_SLL2",
            _ => return None,
        })
    }

    /// Looks up a link type by its libpcap name, ignoring case.
    pub fn from_name(name: &str) -> Option<LinkType> {
        Self::SUPPORTED
            .into_iter()
            .find(|lt| lt.name().is_some_and(|n| n.eq_ignore_ascii_case(name)))
    }

    /// Whether the filter compiler supports this link type.
    pub fn is_supported(self) -> bool {
        Self::SUPPORTED.contains(&self)
    }
}

impl fmt::Display for LinkType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "LINKTYPE {}", self.0),
        }
    }
}
