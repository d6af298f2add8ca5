//! Every macro FPL knows, in one table: adding a field or a constant is one row
//! here (and its line in docs/fpl.md, which a test checks).
//!
//! A macro's definition is FPL expression text, parsed and checked where the
//! macro is used, so a definition may read the packet at offsets computed at run
//! time (the transport fields follow the IPv4 header length) and may use the
//! macros above it. Fields assume an Ethernet frame carrying IPv4, as the seeds'
//! examples do; they do not check that the frame is one (test `ETH_TYPE` and
//! `IP_PROTO` first, as a pcap filter would).

/// Whether a macro names a packet field (usable as `PKT.NAME` or `NAME`) or a
/// constant (usable as `NAME` only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacroKind {
    /// Reads the packet.
    Field,
    /// A number.
    Const,
}

/// One macro: its name (matched without regard to case), kind and definition.
#[derive(Clone, Copy, Debug)]
pub struct Macro {
    /// The name, upper case.
    pub name: &'static str,
    /// Field or constant.
    pub kind: MacroKind,
    /// FPL expression text.
    pub definition: &'static str,
}

const fn field(name: &'static str, definition: &'static str) -> Macro {
    Macro {
        name,
        kind: MacroKind::Field,
        definition,
    }
}

const fn constant(name: &'static str, definition: &'static str) -> Macro {
    Macro {
        name,
        kind: MacroKind::Const,
        definition,
    }
}

/// The table.
pub const MACROS: &[Macro] = &[
    // Ethernet II.
    field("ETH_TYPE", "PKT.W[12]"),
    // IPv4 after a 14-byte Ethernet header.
    field("IP_VERSION", "PKT.B[14] >> 4"),
    field("IP_HL", "PKT.B[14] & 15"),
    field("IP_HLEN", "(PKT.B[14] & 15) * 4"),
    field("IP_TOS", "PKT.B[15]"),
    field("IP_TOT_SIZE", "PKT.W[16]"),
    field("IP_LEN", "PKT.W[16]"),
    field("IP_ID", "PKT.W[18]"),
    field("IP_FLAGS", "PKT.B[20] >> 5"),
    field("IP_FRAG", "PKT.W[20] & 0x1fff"),
    field("IP_TTL", "PKT.B[22]"),
    field("IP_PROTO", "PKT.B[23]"),
    field("IP_CSUM", "PKT.W[24]"),
    field("IP_SRC", "PKT.DW[26]"),
    field("IP_DST", "PKT.DW[30]"),
    field("IP_DEST", "PKT.DW[30]"),
    // The transport header's offset: after the IPv4 header and its options.
    field("L4_OFF", "14 + IP_HLEN"),
    field("TCP_SPORT", "PKT.W[L4_OFF]"),
    field("TCP_DPORT", "PKT.W[L4_OFF + 2]"),
    field("TCP_SEQ", "PKT.DW[L4_OFF + 4]"),
    field("TCP_ACK", "PKT.DW[L4_OFF + 8]"),
    field("TCP_HLEN", "(PKT.B[L4_OFF + 12] >> 4) * 4"),
    field("TCP_FLAGS", "PKT.B[L4_OFF + 13]"),
    field("TCP_WIN", "PKT.W[L4_OFF + 14]"),
    field("TCP_PAYLOAD", "L4_OFF + TCP_HLEN"),
    field("UDP_SPORT", "PKT.W[L4_OFF]"),
    field("UDP_DPORT", "PKT.W[L4_OFF + 2]"),
    field("UDP_LEN", "PKT.W[L4_OFF + 4]"),
    field("UDP_CSUM", "PKT.W[L4_OFF + 6]"),
    field("UDP_PAYLOAD", "L4_OFF + 8"),
    field("ICMP_TYPE", "PKT.B[L4_OFF]"),
    field("ICMP_CODE", "PKT.B[L4_OFF + 1]"),
    // Constants (TCP flags with BSD's names, to leave `TCP_ACK` to the field).
    constant("TRUE", "1"),
    constant("FALSE", "0"),
    constant("ETH_P_IP", "0x0800"),
    constant("ETH_P_ARP", "0x0806"),
    constant("ETH_P_IPV6", "0x86dd"),
    constant("PROTO_ICMP", "1"),
    constant("PROTO_TCP", "6"),
    constant("PROTO_UDP", "17"),
    constant("TH_FIN", "0x01"),
    constant("TH_SYN", "0x02"),
    constant("TH_RST", "0x04"),
    constant("TH_PUSH", "0x08"),
    constant("TH_ACK", "0x10"),
];

/// The macro called `name` (any case).
pub fn lookup(name: &str) -> Option<&'static Macro> {
    MACROS.iter().find(|m| m.name.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_upper_case_and_parse() {
        for (i, m) in MACROS.iter().enumerate() {
            assert_eq!(m.name, m.name.to_ascii_uppercase());
            assert!(
                MACROS[..i].iter().all(|o| o.name != m.name),
                "{} twice",
                m.name
            );
            crate::syntax::parser::parse_expr(m.definition).unwrap();
        }
    }

    #[test]
    fn every_macro_is_documented() {
        let doc = include_str!("../../../docs/fpl.md");
        for m in MACROS {
            assert!(
                doc.contains(&format!("`{}`", m.name)),
                "docs/fpl.md misses {}",
                m.name
            );
        }
    }
}
