//! tcpdump 4.99.3's names for BGP's numbers (print-bgp.c, af.c, l2vpn.c).

/// A `struct tok` table: value and name.
pub(super) struct Tok(&'static [(u32, &'static str)]);

impl Tok {
    /// `tok2str` without its fallback.
    pub(super) fn get(&self, v: impl Into<u32>) -> Option<&'static str> {
        let v = v.into();
        self.0.iter().find(|&&(k, _)| k == v).map(|&(_, n)| n)
    }
}

pub(super) const MESSAGES: Tok = Tok(&[
    (1, "Open"),
    (2, "Update"),
    (3, "Notification"),
    (4, "Keepalive"),
    (5, "Route Refresh"),
]);

pub(super) const CAPABILITIES: Tok = Tok(&[
    (1, "Multiprotocol Extensions"),
    (2, "Route Refresh"),
    (3, "Cooperative Route Filtering"),
    (4, "Multiple Routes to a Destination"),
    (5, "Extended Next Hop Encoding"),
    (8, "Multiple Labels"),
    (64, "Graceful Restart"),
    (65, "32-Bit AS Number"),
    (67, "Dynamic Capability"),
    (68, "Multisession BGP"),
    (69, "Multiple Paths"),
    (70, "Enhanced Route Refresh"),
    (71, "Long-lived Graceful Restart"),
    (128, "Route Refresh (Cisco)"),
]);

pub(super) const NOTIFY_MAJOR: Tok = Tok(&[
    (1, "Message Header Error"),
    (2, "OPEN Message Error"),
    (3, "UPDATE Message Error"),
    (4, "Hold Timer Expired"),
    (5, "Finite State Machine Error"),
    (6, "Cease"),
    (7, "Capability Message Error"),
]);

pub(super) const NOTIFY_CEASE: Tok = Tok(&[
    (1, "Maximum Number of Prefixes Reached"),
    (2, "Administrative Shutdown"),
    (3, "Peer Unconfigured"),
    (4, "Administrative Reset"),
    (5, "Connection Rejected"),
    (6, "Other Configuration Change"),
    (7, "Connection Collision Resolution"),
]);

pub(super) const NOTIFY_MSG: Tok = Tok(&[
    (1, "Connection Not Synchronized"),
    (2, "Bad Message Length"),
    (3, "Bad Message Type"),
]);

pub(super) const NOTIFY_OPEN: Tok = Tok(&[
    (1, "Unsupported Version Number"),
    (2, "Bad Peer AS"),
    (3, "Bad BGP Identifier"),
    (4, "Unsupported Optional Parameter"),
    (5, "Authentication Failure"),
    (6, "Unacceptable Hold Time"),
    (7, "Capability Message Error"),
]);

pub(super) const NOTIFY_UPDATE: Tok = Tok(&[
    (1, "Malformed Attribute List"),
    (2, "Unrecognized Well-known Attribute"),
    (3, "Missing Well-known Attribute"),
    (4, "Attribute Flags Error"),
    (5, "Attribute Length Error"),
    (6, "Invalid ORIGIN Attribute"),
    (7, "AS Routing Loop"),
    (8, "Invalid NEXT_HOP Attribute"),
    (9, "Optional Attribute Error"),
    (10, "Invalid Network Field"),
    (11, "Malformed AS_PATH"),
]);

pub(super) const NOTIFY_FSM: Tok = Tok(&[
    (0, "Unspecified Error"),
    (1, "In OpenSent State"),
    (2, "In OpenConfirm State"),
    (3, "In Established State"),
]);

pub(super) const NOTIFY_CAP: Tok = Tok(&[
    (1, "Invalid Action Value"),
    (2, "Invalid Capability Length"),
    (3, "Malformed Capability Value"),
    (4, "Unsupported Capability Code"),
]);

pub(super) const ATTRIBUTES: Tok = Tok(&[
    (1, "Origin"),
    (2, "AS Path"),
    (17, "AS4 Path"),
    (3, "Next Hop"),
    (4, "Multi Exit Discriminator"),
    (5, "Local Preference"),
    (6, "Atomic Aggregate"),
    (7, "Aggregator"),
    (18, "Aggregator4"),
    (8, "Community"),
    (9, "Originator ID"),
    (10, "Cluster List"),
    (11, "DPA"),
    (12, "Advertisers"),
    (13, "RCID Path / Cluster ID"),
    (14, "Multi-Protocol Reach NLRI"),
    (15, "Multi-Protocol Unreach NLRI"),
    (16, "Extended Community"),
    (22, "PMSI Tunnel"),
    (23, "Tunnel Encapsulation"),
    (24, "Traffic Engineering"),
    (25, "IPv6 Extended Community"),
    (26, "Accumulated IGP Metric"),
    (27, "PE Distinguisher Label"),
    (28, "Entropy Label"),
    (32, "Large Community"),
    (128, "Attribute Set"),
    (255, "Reserved for development"),
]);

pub(super) const ORIGINS: Tok = Tok(&[(0, "IGP"), (1, "EGP"), (2, "Incomplete")]);

pub(super) const PMSI_TUNNELS: Tok = Tok(&[
    (1, "RSVP-TE P2MP LSP"),
    (2, "LDP P2MP LSP"),
    (3, "PIM-SSM Tree"),
    (4, "PIM-SM Tree"),
    (5, "PIM-Bidir Tree"),
    (6, "Ingress Replication"),
    (7, "LDP MP2MP LSP"),
]);

const SAFIS: Tok = Tok(&[
    (0, "Reserved"),
    (1, "Unicast"),
    (2, "Multicast"),
    (3, "Unicast+Multicast"),
    (4, "labeled Unicast"),
    (64, "Tunnel"),
    (65, "VPLS"),
    (66, "MDT"),
    (70, "EVPN"),
    (128, "labeled VPN Unicast"),
    (129, "labeled VPN Multicast"),
    (130, "labeled VPN Unicast+Multicast"),
    (132, "Route Target Routing Information"),
    (5, "Multicast VPN"),
]);

const AFS: Tok = Tok(&[
    (0, "Reserved"),
    (1, "IPv4"),
    (2, "IPv6"),
    (3, "NSAP"),
    (4, "HDLC"),
    (5, "BBN 1822"),
    (6, "802"),
    (7, "E.163"),
    (8, "E.164"),
    (9, "F.69"),
    (10, "X.121"),
    (11, "Novell IPX"),
    (12, "Appletalk"),
    (13, "Decnet IV"),
    (14, "Banyan Vines"),
    (15, "E.164 with NSAP subaddress"),
    (196, "Layer-2 VPN"),
    (25, "VPLS"),
]);

/// af.c's `af_values`.
pub(super) fn af_name(af: u16) -> Option<&'static str> {
    AFS.get(af)
}

/// `bgp_safi_values`.
pub(super) fn safi_name(safi: u8) -> Option<&'static str> {
    SAFIS.get(safi)
}

pub(super) const EXT_COMM_SUBTYPES: Tok = Tok(&[
    (0x0002, "target"),
    (0x0102, "target"),
    (0x0202, "target"),
    (0x0003, "origin"),
    (0x0103, "origin"),
    (0x0203, "origin"),
    (0x4004, "link-BW"),
    (0x0005, "ospf-domain"),
    (0x0105, "ospf-domain"),
    (0x0205, "ospf-domain"),
    (0x8005, "ospf-domain"),
    (0x0306, "ospf-route-type"),
    (0x8000, "ospf-route-type"),
    (0x030c, "encapsulation"),
    (0x0107, "ospf-router-id"),
    (0x8001, "ospf-router-id"),
    (0x800a, "layer2-info"),
    (0x8800, "eigrp-general-route (flag, tag)"),
    (0x8801, "eigrp-route-metric (AS, delay)"),
    (
        0x8802,
        "eigrp-route-metric (reliability, nexthop, bandwidth)",
    ),
    (0x8803, "eigrp-route-metric (load, MTU)"),
    (0x8804, "eigrp-external-route (remote-AS, remote-ID)"),
    (0x8805, "eigrp-external-route (remote-proto, remote-metric)"),
    (0x0009, "source-AS"),
    (0x010b, "vrf-route-import"),
    (0x000a, "l2vpn-id"),
    (0xf10a, "l2vpn-id"),
]);

pub(super) const ENCAP_TUNNELS: Tok = Tok(&[
    (1, "L2TPv3 over IP"),
    (2, "GRE"),
    (3, "Transmit Tunnel"),
    (4, "IPsec"),
    (5, "IP in IP with IPsec"),
    (6, "MPLS in IP with IPsec"),
    (7, "IP in IP"),
    (8, "VXLAN"),
    (9, "NVGRE"),
    (10, "MPLS"),
    (11, "MPLS in GRE"),
    (12, "VXLAN GPE"),
    (13, "MPLS in UDP"),
    (14, "IPv6"),
    (15, "SR TE"),
    (16, "Bare"),
    (17, "SR"),
]);

pub(super) const OSPF_ROUTE_TYPES: Tok = Tok(&[
    (1, "Router"),
    (2, "Network"),
    (3, "Summary"),
    (5, "External"),
    (7, "NSSA External"),
    (129, "MPLS-VPN Sham"),
]);

/// l2vpn.c's `l2vpn_encaps_values`.
pub(super) const L2VPN_ENCAPS: Tok = Tok(&[
    (0, "Reserved"),
    (1, "Frame Relay"),
    (2, "ATM AAL5 SDU VCC transport"),
    (3, "ATM transparent cell transport"),
    (4, "Ethernet (VLAN) Tagged Mode"),
    (5, "Ethernet Raw Mode"),
    (6, "Cisco HDLC"),
    (7, "PPP"),
    (8, "SONET/SDH Circuit Emulation Service over MPLS"),
    (9, "ATM n-to-one VCC cell transport"),
    (10, "ATM n-to-one VPC cell transport"),
    (11, "IP layer 2 transport"),
    (15, "Frame Relay Port mode"),
    (17, "Structure-agnostic E1 over packet"),
    (18, "Structure-agnostic T1 (DS1) over packet"),
    (19, "VPLS"),
    (20, "Structure-agnostic T3 (DS3) over packet"),
    (21, "Nx64kbit/s Basic Service using Structure-aware"),
    (25, "Frame Relay DLCI"),
    (40, "Structure-agnostic E3 over packet"),
    (
        41,
        "Octet-aligned playload for Structure-agnostic DS1 circuits",
    ),
    (42, "E1 Nx64kbit/s with CAS using Structure-aware"),
    (43, "DS1 (ESF) Nx64kbit/s with CAS using Structure-aware"),
    (44, "DS1 (SF) Nx64kbit/s with CAS using Structure-aware"),
]);

pub(super) const MVPN_ROUTE_TYPES: Tok = Tok(&[
    (1, "Intra-AS I-PMSI"),
    (2, "Inter-AS I-PMSI"),
    (3, "S-PMSI"),
    (4, "Intra-AS Segment-Leaf"),
    (5, "Source-Active"),
    (6, "Shared Tree Join"),
    (7, "Source Tree Join"),
]);
