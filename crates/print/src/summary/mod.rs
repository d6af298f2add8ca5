//! One-line, tcpdump-style packet summaries.
//!
//! [`summarize`] renders a captured packet the way `tcpdump -n -S` prints it after
//! the timestamp (for example `IP 10.0.0.1.52422 > 10.0.0.2.80: Flags [S], seq 1,
//! win 65535, length 0`). It is stateless, so TCP sequence numbers are absolute.
//! [`Summarizer`] remembers the initial sequence numbers of each TCP connection, as
//! tcpdump does, and prints later segments with relative numbers, which is what a
//! plain `tcpdump -n` shows. [`SummaryOptions::link_header`] adds the link-level
//! header like `tcpdump -e`.
//!
//! The dissectors follow tcpdump 4.99's output, one small module per protocol
//! family (which ones, and with which flags, docs/status.md lists under printing
//! parity, with the tests that compare each with tcpdump on the corpus). Other
//! protocols get tcpdump's generic rendering (`UDP, length N`,
//! `ethertype Unknown (0x88b5), length N: `, `ip-proto-N N`). Every read is
//! bounds-checked: a packet cut short ends with tcpdump's `[|proto]` marker, and no
//! input makes the summarizer panic.
//!
//! NFS over Sun RPC (`nfs/`, tcpdump's print-nfs.c) decodes a reply through the
//! call it answers, kept in a ring of the last 64 calls; `nfs_handles` is `-u`.
//! The long tail has a module each as well: Arista's timestamp header, L2TP,
//! LWAPP, OLSR, CFM, Q.933, PPTP, MS NLB, DVMRP and mtrace, AODV, Auto-RP,
//! timed, NSH and VXLAN-GPE, VQP, the whiteboard, LMP (its objects with
//! `-v`), lwres, zephyr, telnet's commands, PPP's PAP and multilink header;
//! and what only `-T` reaches: RTP, RTCP, vat, NetFlow, CARP, ZMTP/1.0 over
//! TCP and in PGM data (`tests/tcpdump_ptail.rs`).
//!
//! [`SummaryOptions::names`] gives the names tcpdump prints without `-n`
//! (ports, hosts, Ethernet vendors, IP protocols; see [`crate::Names`]).
//!
//! [`SummaryOptions::verbose`] gives `tcpdump -v`'s text instead, which may span
//! lines (`\n    ` after an IPv4 header, `\n\t` before the details of many
//! protocols); [`SummaryOptions::quiet`] gives `tcpdump -q`'s. Both are checked
//! against tcpdump on the corpus by `tests/tcpdump_verbose_quiet.rs`, which lists
//! the protocols whose `-v` details are not reproduced yet (BGP, OSPFv2
//! link-state advertisements, DHCP, PPP options, IPv6 mobility).
//! `-v`/`-vv` of ISAKMP/IKE payloads, RSVP objects, DHCPv6 options, HNCP,
//! ICMP extension objects, PIMv1, auto-RP, NSH/VXLAN-GPE, timed, VQP, the
//! whiteboard, ATM OAM cells, Juniper headers and OSI over Frame Relay:
//! `tests/tcpdump_vtail.rs`.

mod ahcp;
mod aodv;
mod aoe;
mod app;
mod apps;
mod arcnet;
mod arista;
mod atm;
mod autorp;
mod babel;
mod bcm_li;
mod bgp;
mod bootp;
mod carp;
mod cdp;
mod cfm;
mod cisco;
mod cnfp;
mod dccp;
mod decnet;
mod dhcp6;
mod dhcp6_opts;
mod dhcp_opts;
mod dvmrp;
mod eapol;
mod edns;
mod eigrp;
mod forces;
mod fr;
mod geonet;
mod gmpls;
mod hncp;
mod hncp_tlv;
mod icmp6_ni;
mod ieee802_15_4;
mod igrp;
mod ipoib;
mod ipx;
mod ipx_sap;
mod isakmp;
mod isis;
mod juniper;
mod juniper_ext;
mod krb;
mod l2tp;
mod lan;
mod ldp;
mod link;
mod lisp;
mod lldp;
mod lmp;
mod lspping;
mod lwapp;
mod lwres;
mod m3ua;
mod mobility;
mod msnlb;
mod net;
mod nflog;
mod nfs;
mod nsh;
mod ntp;
mod olsr;
mod openflow;
mod ospf;
mod ospf2;
mod ospf6_lsa;
mod ospf_te;
mod packet_type;
mod pgm;
mod pim;
mod pimv1;
mod pktap;
mod ppi;
mod ppp_auth;
mod ppp_cp;
mod ppp_opts;
mod ppp_serial;
mod pptp;
mod ptp;
mod q933;
mod radius;
mod radius_attrs;
mod radius_eap;
mod resp;
mod ripng;
mod rpki_rtr;
mod rsvp;
mod rsvp_obj;
mod rsvp_sub;
mod rtp;
mod rx;
mod serial;
mod sflow;
mod slow;
mod smi;
mod snmp;
mod someip;
mod sunatm;
mod switchtag;
mod telnet;
mod tftp;
mod timed;
mod tipc;
mod transport;
mod vqp;
mod vsock;
mod vtp;
mod wb;
mod wlan;
mod zephyr;
mod zmtp1;

use crate::names::Names;
use netsift_wire::LinkType;
use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};

/// How summaries are rendered.
#[derive(Clone, Copy, Debug, Default)]
pub struct SummaryOptions {
    /// Print TCP sequence and acknowledgment numbers as they are on the wire
    /// (`tcpdump -S`) instead of relative to the first segment seen.
    pub absolute_tcp_seq: bool,
    /// Print the link-level header (`tcpdump -e`): MAC addresses, EtherType and
    /// VLAN tags, SLL direction and address, BSD loopback address family.
    pub link_header: bool,
    /// Maps an interface index of an SLL2 header to a name; without it, or when it
    /// returns `None`, the name is printed as `?` (what tcpdump prints when the
    /// index is unknown on the reading machine).
    pub interface_name: Option<fn(u32) -> Option<String>>,
    /// How verbose, like tcpdump's count of `-v`. 0 is the default line; 1 adds
    /// what `tcpdump -v` adds (the IPv4 header fields `(tos 0x0, ttl 64, id 1,
    /// offset 0, flags [DF], proto TCP (6), length 60)` and tcpdump's line break
    /// and indentation `\n    `, checksum verdicts, each protocol's details), 2
    /// what `-vv` adds where a printer has it (hex dumps of undecoded TLVs, more
    /// fields), 3 what `-vvv` adds. Which printers print which levels as tcpdump
    /// does is listed in docs/status.md under printing parity.
    ///
    /// A verbose summary may span several lines (tcpdump's `\n    ` and `\n\t`
    /// continuations); the default and quiet ones only where tcpdump's do
    /// (OpenFlow's messages, the dump of an undecoded payload, the inner frame
    /// of VXLAN or OTV on a line of its own).
    pub verbose: u8,
    /// tcpdump's `-q`: less protocol detail. TCP prints `tcp N` (the payload
    /// length) instead of flags, numbers and options, and keeps no relative
    /// sequence state; UDP prints `UDP, length N` without decoding the payload;
    /// DCCP `DCCP N`; IGMP `igmp`; an unknown EtherType `Unknown Ethertype
    /// (0x88b5)`. With `verbose`, the verbose IP header fields come first, as
    /// with `tcpdump -v -q`.
    pub quiet: bool,
    /// tcpdump's `-T TYPE`: every UDP payload (and TCP payload, for the TCP
    /// types) read as that protocol, whatever its ports (see [`PacketType`]).
    pub packet_type: Option<PacketType>,
    /// tcpdump's `-b`: BGP's AS numbers above 65535 as `x.y` (ASDOT).
    pub asdot: bool,
    /// tcpdump's `-H`: an 802.11 QoS data frame's mesh control field (802.11s)
    /// is taken as part of its header, and printed with `-e`.
    pub mesh_headers: bool,
    /// tcpdump's `-u`: NFS file handles printed whole, as hex words
    /// (`fh[...]`), instead of the file system and file number guessed from them.
    pub nfs_handles: bool,
    /// tcpdump's `-X` (its `Xflag`), which a few printers read besides the
    /// dump: with `verbose` at 3, telnet prints each command's bytes in hex
    /// beside it.
    pub hex_ascii: bool,
    /// The names printed without `-n` ([`Names`]: ports, protocols, hosts,
    /// Ethernet addresses and their vendors); `None` prints numbers, as `-n` does.
    pub names: Option<&'static Names>,
    /// tcpdump's default print: the hex and ASCII dump of a payload no printer
    /// decodes (an unknown EtherType or LLC, an unknown ARP operation).
    pub default_print: DefaultPrint,
}

/// Whether payloads no printer decodes are dumped, as tcpdump's
/// `ND_DEFAULTPRINT` dumps them on lines of their own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DefaultPrint {
    /// Never: the summary alone.
    #[default]
    Off,
    /// As tcpdump prints them by default.
    On,
    /// As tcpdump with `-q`, `-x` or `-X` (its `suppress_default_print`):
    /// only the dumps that flag does not guard (an unknown ARP operation's).
    Suppressed,
}

/// Renders one packet as tcpdump's one-line summary, without timestamp.
///
/// `data` is the captured bytes and `wire_len` the original length on the wire
/// (`len` of the pcap record). TCP sequence numbers are absolute, as with
/// `tcpdump -S`; use a [`Summarizer`] for tcpdump's default relative numbers.
pub fn summarize(linktype: LinkType, data: &[u8], wire_len: u32) -> String {
    Summarizer::with_options(SummaryOptions {
        absolute_tcp_seq: true,
        ..SummaryOptions::default()
    })
    .summarize(linktype, data, wire_len)
}

/// Renders packets one after the other, keeping the TCP state that tcpdump uses to
/// print relative sequence numbers.
#[derive(Debug, Default)]
pub struct Summarizer {
    options: SummaryOptions,
    tcp: TcpSeqState,
    /// The last packet's `[|proto]` marker came from a printer that returned
    /// after it (see [`Printer::caught_trunc`]).
    caught_trunc: bool,
}

impl Summarizer {
    /// A summarizer with default options (relative TCP sequence numbers, no link
    /// header): the output of `tcpdump -n`.
    pub fn new() -> Self {
        Self::default()
    }

    /// A summarizer with the given options.
    pub fn with_options(options: SummaryOptions) -> Self {
        Summarizer {
            options,
            tcp: TcpSeqState::default(),
            caught_trunc: false,
        }
    }

    /// The options in use.
    pub fn options(&self) -> &SummaryOptions {
        &self.options
    }

    /// Forgets every TCP connection seen so far.
    pub fn reset(&mut self) {
        self.tcp = TcpSeqState::default();
    }

    /// Renders the next packet of the capture.
    pub fn summarize(&mut self, linktype: LinkType, data: &[u8], wire_len: u32) -> String {
        let mut p = Printer {
            out: String::with_capacity(128),
            proto: "",
            opts: self.options,
            tcp: &mut self.tcp,
            printed_nothing: false,
            caught_trunc: false,
        };
        p.packet(linktype, data, wire_len);
        self.caught_trunc = p.caught_trunc;
        p.out
    }

    /// Whether the last packet's truncation marker was printed by a printer
    /// that went on (tcpdump's `nd_print_trunc`, no `longjmp`), for printers
    /// that do both; `-x` then still leaves the link-level header out.
    pub(crate) fn caught_trunc(&self) -> bool {
        self.caught_trunc
    }
}

/// The initial sequence numbers of each TCP connection, keyed like tcpdump's
/// `tcp_seq_hash` (addresses and ports in a canonical order).
#[derive(Debug, Default)]
pub(crate) struct TcpSeqState {
    v4: HashMap<TcpKey<4>, (u32, u32)>,
    v6: HashMap<TcpKey<16>, (u32, u32)>,
    /// Not TCP's, but kept alike for the capture: the last Rx calls, ISAKMP
    /// initiators and NFS calls.
    rx: rx::RxCache,
    isakmp: isakmp::Cookies,
    nfs: nfs::XidMap,
    /// Compressed SLIP's connection and the lengths its packets count from.
    slip: serial::SlipVj,
}

/// Lower-ordered address, higher-ordered address, ports.
type TcpKey<const N: usize> = ([u8; N], [u8; N], u32);

/// The capture ended before a field the printer needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Trunc;

pub(crate) type PResult<T = ()> = Result<T, Trunc>;

/// The IP header a transport printer hangs off (tcpdump's `bp2`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum IpAddrs {
    V4(Ipv4Addr, Ipv4Addr),
    V6(Ipv6Addr, Ipv6Addr),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct IpCtx {
    pub addrs: IpAddrs,
    /// `ip_p` of the IPv4 header or `ip6_nxt` of the IPv6 fixed header.
    pub first_nh: u8,
    pub fragmented: bool,
    /// TTL or hop limit.
    pub ttl: u8,
    /// The addresses a transport checksum's pseudo-header holds: the source and
    /// the final destination (the last hop of an IPv4 source route or of an IPv6
    /// routing header, as tcpdump's `ip_finddst`/`ip6_finddst` find it).
    pub pseudo: IpAddrs,
}

impl IpCtx {
    pub(crate) fn is_v6(&self) -> bool {
        matches!(self.addrs, IpAddrs::V6(..))
    }

    /// tcpdump's `nextproto4_cksum`/`nextproto6_cksum` of `segment` (all of it
    /// captured): 0 when the checksum field in it is right.
    pub(crate) fn transport_cksum(&self, proto: u8, segment: &[u8]) -> u16 {
        match self.pseudo {
            IpAddrs::V4(s, d) => {
                netsift_wire::checksum::pseudo(&s.octets(), &d.octets(), proto, segment)
            }
            IpAddrs::V6(s, d) => {
                netsift_wire::checksum::pseudo(&s.octets(), &d.octets(), proto, segment)
            }
        }
    }
}

/// tcpdump's `in_cksum_shouldbe`: the value the checksum field should hold, from
/// the field and the (nonzero) checksum computed over the data including it.
pub(crate) fn cksum_shouldbe(field: u16, computed: u16) -> u16 {
    let mut s = field as u32 + computed as u32;
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    s as u16
}

pub(crate) struct Printer<'a> {
    pub out: String,
    /// tcpdump's `ndo_protocol`: the name put in `[|name]` on truncation.
    pub proto: &'static str,
    pub opts: SummaryOptions,
    pub tcp: &'a mut TcpSeqState,
    /// The link's printer printed nothing on purpose, as tcpdump does for a
    /// payload it cannot print (ARCNET's unknown protocols without `-x`).
    pub printed_nothing: bool,
    /// The last marker was printed by a printer that returns after it, where
    /// the same printer may also end with a `longjmp` (BGP).
    pub caught_trunc: bool,
}

macro_rules! out {
    ($p:expr, $($arg:tt)*) => {{
        let _ = ::std::fmt::Write::write_fmt(&mut $p.out, ::std::format_args!($($arg)*));
    }};
}
pub(crate) use out;
pub use packet_type::PacketType;

impl Printer<'_> {
    /// `, proto NAME (0x....)`: the EtherType an encapsulation (GRE, Geneve)
    /// carries, as tcpdump prints it with `-e`.
    fn encap_proto(&mut self, prot: u16) {
        if self.opts.link_header {
            out!(
                self,
                ", proto {} (0x{:04x})",
                netsift_wire::ethernet::EtherType(prot)
                    .name()
                    .unwrap_or("unknown"),
                prot
            );
        }
    }

    fn packet(&mut self, linktype: LinkType, data: &[u8], wire_len: u32) {
        let caplen = data.len();
        if caplen == 0 || wire_len == 0 || caplen as u64 > wire_len as u64 {
            self.out.push_str("[Invalid header: ");
            if caplen == 0 && wire_len == 0 {
                self.out.push_str("caplen==0, len==0");
            } else if caplen == 0 {
                self.out.push_str("caplen==0");
            } else if wire_len == 0 {
                self.out.push_str("len==0");
            } else {
                out!(self, "len({wire_len}) < caplen({caplen})");
            }
            self.out.push(']');
            return;
        }
        let r = match self.link_layer(linktype, data, wire_len) {
            Some(r) => r,
            None => {
                // tcpdump's `unsupported_if_print`: the name, then every
                // captured byte, whatever the flags.
                self.out.push_str("UNSUPPORTED");
                crate::dump::hex_and_ascii(&mut self.out, data);
                Ok(())
            }
        };
        if r.is_err() {
            self.trunc();
            self.caught_trunc = false;
        }
        if self.out.is_empty() && !self.printed_nothing {
            out!(self, "{linktype}, length {wire_len}");
        }
    }

    /// The printer of `linktype` on one packet; `None`, having printed
    /// nothing, when there is none.
    pub(crate) fn link_layer(
        &mut self,
        linktype: LinkType,
        data: &[u8],
        wire_len: u32,
    ) -> Option<PResult> {
        Some(match linktype {
            LinkType::EN10MB => self.ether_if(data, wire_len),
            LinkType::NULL | LinkType::LOOP => self.null_if(linktype, data, wire_len),
            LinkType::LINUX_SLL => self.sll_if(data, wire_len),
            LinkType::LINUX_SLL2 => self.sll2_if(data, wire_len),
            LinkType::RAW | LinkType::IPV4 | LinkType::IPV6 => self.raw_if(data, wire_len),
            LinkType::PPP => self.ppp_if(data, wire_len),
            LinkType::C_HDLC => self.chdlc_if(data, wire_len),
            LinkType::PFLOG => self.pflog_if(data, wire_len),
            LinkType::SLIP => self.slip_if(data, wire_len),
            LinkType::IPNET => self.ipnet_if(data, wire_len),
            LinkType::FDDI => self.fddi_if(data, wire_len),
            LinkType::IEEE802 => self.token_if(data, wire_len),
            LinkType::IP_OVER_FC => self.ipfc_if(data, wire_len),
            LinkType::APPLE_IP_OVER_IEEE1394 => self.ap1394_if(data, wire_len),
            LinkType::ARCNET => self.arcnet_if(data, wire_len),
            LinkType::ATM_RFC1483 => self.atm_rfc1483_if(data, wire_len),
            LinkType::ATM_CLIP => self.atm_clip_if(data, wire_len),
            LinkType::ARCNET_LINUX => self.arcnet_linux_if(data, wire_len),
            LinkType::IEEE802_11 => self.wlan_if(data, wire_len),
            LinkType::IEEE802_11_RADIO => self.wlan_radio_if(data, wire_len),
            LinkType::IEEE802_11_RADIO_AVS => self.wlan_avs_if(data, wire_len),
            LinkType::PRISM_HEADER => self.prism_if(data, wire_len),
            LinkType::FRELAY => self.fr_if(data, wire_len),
            LinkType(182) => self.mfr_if(data, wire_len),
            LinkType(lt @ (281 | 282 | 284 | 285)) => self.switch_tag_if(lt, data, wire_len),
            LinkType(242) => self.ipoib_if(data, wire_len),
            LinkType::SUNATM => self.sunatm_if(data, wire_len),
            // IEEE802_15_4 (with FCS) and IEEE802_15_4_NOFCS.
            LinkType(195 | 230) => self.ieee802_15_4_if(data, wire_len),
            LinkType(lt @ (132 | 137 | 164 | 178)) => self.juniper_if(lt, data, wire_len),
            LinkType::PPP_SERIAL => self.ppp_serial_if(data, wire_len),
            LinkType(239) => self.nflog_if(data, wire_len),
            LinkType(271) => self.vsock_if(data, wire_len),
            // PKTAP, also under DLT_USER2 as Darwin writes it.
            LinkType(258 | 149) => self.pktap_if(data, wire_len),
            LinkType::PPI => self.ppi_if(data, wire_len),
            _ => return None,
        })
    }

    /// `ND_DEFAULTPRINT`: `p`, the captured bytes of a payload no printer
    /// decoded, in hex and ASCII on lines of their own.
    /// `guarded`: tcpdump checks its `suppress_default_print` first.
    pub(crate) fn default_print(&mut self, p: &[u8], guarded: bool) {
        let on = match self.opts.default_print {
            DefaultPrint::Off => false,
            DefaultPrint::On => true,
            DefaultPrint::Suppressed => !guarded,
        };
        if on {
            crate::dump::hex_and_ascii(&mut self.out, p);
        }
    }

    /// tcpdump's `print_unknown_data`: the captured part of `len` bytes of `p`
    /// from `at` in hex, each line starting with `ident`; its complaint, and
    /// false, when `at` is past the captured bytes (a caller may then stop).
    pub(crate) fn unknown_data(&mut self, p: &[u8], at: usize, len: usize, ident: &str) -> bool {
        if at > p.len() {
            out!(
                self,
                "{ident}Dissector error: print_unknown_data called with pointer past end of packet"
            );
            return false;
        }
        crate::dump::unknown_data(&mut self.out, ident, &p[at..], len);
        true
    }

    /// tcpdump's `hex_print(ndo, ident, p, len)` of all of `p`.
    pub(crate) fn hex_print(&mut self, p: &[u8], ident: &str) {
        crate::dump::hex_print(&mut self.out, ident, p);
    }

    /// A truncation tcpdump's printer finds with a length test (its `goto
    /// trunc`) rather than by a read that `longjmp`s: the marker is printed
    /// by the printer, which returns, and `-x` leaves the link header out.
    /// The printer passes the `Trunc` up to where it prints the marker.
    pub(crate) fn caught(&mut self) -> Trunc {
        self.caught_trunc = true;
        Trunc
    }

    /// Appends tcpdump's truncation marker for the current protocol.
    pub(crate) fn trunc(&mut self) {
        out!(self, " [|{}]", self.proto);
    }

    /// Runs a printer and turns a truncation inside it into the marker, the way
    /// tcpdump's dissectors that catch their own truncation do.
    pub(crate) fn catch(&mut self, r: PResult) {
        if r.is_err() {
            self.trunc();
        }
    }

    /// The bracketed checksum verdict of UDP over IPv6 and ICMPv6 with `-v`:
    /// `field` is the checksum in the packet, `sum` the one computed over it.
    pub(crate) fn cksum_verdict(&mut self, name: &str, field: u16, sum: u16) {
        if sum == 0 {
            out!(self, "[{name} sum ok] ");
        } else {
            let should = cksum_shouldbe(field, sum);
            out!(self, "[bad {name} cksum 0x{field:04x} -> 0x{should:04x}!] ");
        }
    }

    /// tcpdump's `nd_printjnp`: up to `n` bytes of `p` from `at` as text,
    /// stopping at a NUL (a fixed-size field padded with zeros).
    pub(crate) fn jnp(&mut self, p: &[u8], at: usize, n: usize) -> PResult {
        for i in 0..n {
            match g1(p, at + i)? {
                0 => break,
                c => print_char(&mut self.out, c),
            }
        }
        Ok(())
    }

    /// The two addresses as tcpdump prints them (`ipaddr_string`,
    /// `ip6addr_string`): host names from the hosts file without `-n`.
    pub(crate) fn addr_str(&self, a: &IpAddrs) -> (String, String) {
        match *a {
            IpAddrs::V4(s, d) => (self.host4(s), self.host4(d)),
            IpAddrs::V6(s, d) => (self.host6(s), self.host6(d)),
        }
    }

    pub(crate) fn host4(&self, a: Ipv4Addr) -> String {
        host4_name(self.opts.names, a)
    }

    pub(crate) fn host6(&self, a: Ipv6Addr) -> String {
        match self.opts.names.and_then(|n| n.host6(a)) {
            Some(name) => name.to_string(),
            None => v6s(a),
        }
    }

    /// `tcpport_string`.
    pub(crate) fn tcp_port(&self, port: u16) -> String {
        match self.opts.names.and_then(|n| n.tcp_port(port)) {
            Some(name) => name.to_string(),
            None => port.to_string(),
        }
    }

    /// `udpport_string`.
    pub(crate) fn udp_port(&self, port: u16) -> String {
        match self.opts.names.and_then(|n| n.udp_port(port)) {
            Some(name) => name.to_string(),
            None => port.to_string(),
        }
    }

    /// `netdb_protoname`'s name of an IP protocol, or `ip-proto-N`.
    pub(crate) fn proto_name(&self, proto: u8) -> String {
        match self.opts.names.and_then(|n| n.protocol(proto)) {
            Some(name) => name.to_string(),
            None => format!("ip-proto-{proto}"),
        }
    }

    /// `etheraddr_string`: with names, the ethers file's name or the address and
    /// its vendor.
    pub(crate) fn ether_str(&self, mac: [u8; 6]) -> String {
        ether_name(self.opts.names, mac)
    }
}

/// `ipaddr_string`: the hosts file's name of `a` when there are names.
pub(crate) fn host4_name(names: Option<&Names>, a: Ipv4Addr) -> String {
    match names.and_then(|n| n.host4(a)) {
        Some(name) => name.to_string(),
        None => a.to_string(),
    }
}

/// `etheraddr_string`: with names, the ethers file's name or the address and its
/// vendor.
pub(crate) fn ether_name(names: Option<&Names>, mac: [u8; 6]) -> String {
    match names {
        Some(n) => n.ether(mac),
        None => netsift_wire::ethernet::EthernetAddress(mac).to_string(),
    }
}

// Bounds-checked reads for the printers: each fails with `Trunc` past the
// captured bytes.

pub(crate) fn g1(b: &[u8], at: usize) -> PResult<u8> {
    b.get(at).copied().ok_or(Trunc)
}

pub(crate) fn g2(b: &[u8], at: usize) -> PResult<u16> {
    match b.get(at..at.checked_add(2).ok_or(Trunc)?) {
        Some(&[x, y]) => Ok(u16::from_be_bytes([x, y])),
        _ => Err(Trunc),
    }
}

pub(crate) fn g3(b: &[u8], at: usize) -> PResult<u32> {
    match b.get(at..at.checked_add(3).ok_or(Trunc)?) {
        Some(&[x, y, z]) => Ok(u32::from_be_bytes([0, x, y, z])),
        _ => Err(Trunc),
    }
}

pub(crate) fn g4(b: &[u8], at: usize) -> PResult<u32> {
    match b.get(at..at.checked_add(4).ok_or(Trunc)?) {
        Some(&[w, x, y, z]) => Ok(u32::from_be_bytes([w, x, y, z])),
        _ => Err(Trunc),
    }
}

pub(crate) fn g8(b: &[u8], at: usize) -> PResult<u64> {
    Ok(u64::from(g4(b, at)?) << 32 | u64::from(g4(b, at.checked_add(4).ok_or(Trunc)?)?))
}

/// A MAC address.
pub(crate) fn gmac(b: &[u8], at: usize) -> PResult<[u8; 6]> {
    let s = b.get(at..at.checked_add(6).ok_or(Trunc)?).ok_or(Trunc)?;
    let mut a = [0u8; 6];
    a.copy_from_slice(s);
    Ok(a)
}

pub(crate) fn gv4(b: &[u8], at: usize) -> PResult<Ipv4Addr> {
    g4(b, at).map(Ipv4Addr::from)
}

pub(crate) fn gv6(b: &[u8], at: usize) -> PResult<Ipv6Addr> {
    let s = b.get(at..at.checked_add(16).ok_or(Trunc)?).ok_or(Trunc)?;
    let mut a = [0u8; 16];
    a.copy_from_slice(s);
    Ok(Ipv6Addr::from(a))
}

pub(crate) fn v6s(a: Ipv6Addr) -> String {
    netsift_wire::ip::Ipv6Display(a).to_string()
}

/// Checks `n` bytes from `at` are captured.
pub(crate) fn need(b: &[u8], at: usize, n: usize) -> PResult {
    match at.checked_add(n) {
        Some(end) if end <= b.len() => Ok(()),
        _ => Err(Trunc),
    }
}

/// tcpdump's `bittok2str`: the names of the bits set in `v`, or `none`.
pub(crate) fn bit_names(v: u32, names: &[(u32, &str)]) -> String {
    bit_names_or(v, names, "none")
}

/// `bittok2str` with its own text for no bit set.
pub(crate) fn bit_names_or(v: u32, names: &[(u32, &str)], none: &str) -> String {
    let set: Vec<&str> = names
        .iter()
        .filter(|&&(bit, _)| v & bit != 0)
        .map(|&(_, n)| n)
        .collect();
    if set.is_empty() {
        none.to_string()
    } else {
        set.join(", ")
    }
}

/// tcpdump's `unsigned_relts_print`.
pub(crate) fn relts(secs: u32) -> String {
    if secs == 0 {
        return "0s".to_string();
    }
    const UNITS: [(u32, &str); 6] = [
        (31_536_000, "y"),
        (604_800, "w"),
        (86_400, "d"),
        (3_600, "h"),
        (60, "m"),
        (1, "s"),
    ];
    let mut s = String::new();
    let mut secs = secs;
    for (n, u) in UNITS {
        if secs >= n {
            s.push_str(&format!("{}{}", secs / n, u));
            secs %= n;
        }
    }
    s
}

/// tcpdump's `fn_print_char`.
pub(crate) fn print_char(out: &mut String, c: u8) {
    let mut c = c;
    if !c.is_ascii() {
        c &= 0x7f;
        out.push_str("M-");
    }
    if !is_print(c) {
        c ^= 0x40;
        out.push('^');
    }
    out.push(c as char);
}

/// `b[from..]`, or empty.
pub(crate) fn tail(b: &[u8], from: usize) -> &[u8] {
    b.get(from..).unwrap_or(&[])
}

/// `b[..n]` clamped.
pub(crate) fn head(b: &[u8], n: usize) -> &[u8] {
    &b[..n.min(b.len())]
}

/// tcpdump's `tok2str` with a `%u`-style fallback.
pub(crate) fn name_or(name: Option<&'static str>, fallback: impl FnOnce() -> String) -> String {
    match name {
        Some(n) => n.to_string(),
        None => fallback(),
    }
}

/// Printable ASCII in tcpdump's sense (0x20..=0x7e).
pub(crate) fn is_print(c: u8) -> bool {
    (0x20..=0x7e).contains(&c)
}
