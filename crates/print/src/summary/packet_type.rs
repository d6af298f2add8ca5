//! tcpdump's `-T TYPE` (`ndo_packettype`): the payload of every UDP datagram, and of
//! every TCP segment for the TCP types, is read as that protocol whatever its
//! ports. As in tcpdump's `udp_print` and `tcp_print`, a forced type decides the
//! whole payload: a UDP datagram gets its addresses and the forced printer only
//! (no checksum verdict, and `-q` does not stop it), and a type with no printer on
//! that transport prints nothing after the header (`-T resp` on UDP prints `IP `,
//! `-T snmp` on TCP ends after `length N`). `-T carp` reads IP protocol 112
//! as CARP instead of VRRP, where tcpdump's `ip_demux_print` decides it.

use super::{IpCtx, PResult, Printer};

/// The `-T` types: all that tcpdump 4.99.3 knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketType {
    /// Ad hoc On-Demand Distance Vector routing.
    Aodv,
    /// OpenBSD's CARP, IP protocol 112 read instead of VRRP.
    Carp,
    /// Cisco NetFlow versions 1, 5 and 6.
    Cnfp,
    /// DNS, over UDP and TCP.
    Domain,
    /// The link management protocol.
    Lmp,
    /// Pragmatic General Multicast over UDP.
    Pgm,
    /// PGM, with ZMTP/1.0 in the data of ODATA and RDATA packets.
    PgmZmtp1,
    /// Precision Time Protocol.
    Ptp,
    /// RADIUS.
    Radius,
    /// Redis's RESP, over TCP.
    Resp,
    /// Sun RPC: a call as the portmapper's, anything else as an NFS reply.
    Rpc,
    /// RTP control.
    Rtcp,
    /// RTP, version 1 or 2.
    Rtp,
    /// SNMP.
    Snmp,
    /// SOME/IP.
    Someip,
    /// TFTP.
    Tftp,
    /// LBL's vat (and vt) audio.
    Vat,
    /// VXLAN.
    Vxlan,
    /// The LBL whiteboard.
    Wb,
    /// ZeroMQ's ZMTP/1.0, over TCP.
    Zmtp1,
}

impl PacketType {
    /// Every type with the name `-T` takes.
    pub const ALL: &'static [(&'static str, PacketType)] = &[
        ("aodv", PacketType::Aodv),
        ("carp", PacketType::Carp),
        ("cnfp", PacketType::Cnfp),
        ("domain", PacketType::Domain),
        ("lmp", PacketType::Lmp),
        ("pgm", PacketType::Pgm),
        ("pgm_zmtp1", PacketType::PgmZmtp1),
        ("ptp", PacketType::Ptp),
        ("radius", PacketType::Radius),
        ("resp", PacketType::Resp),
        ("rpc", PacketType::Rpc),
        ("rtcp", PacketType::Rtcp),
        ("rtp", PacketType::Rtp),
        ("snmp", PacketType::Snmp),
        ("someip", PacketType::Someip),
        ("tftp", PacketType::Tftp),
        ("vat", PacketType::Vat),
        ("vxlan", PacketType::Vxlan),
        ("wb", PacketType::Wb),
        ("zmtp1", PacketType::Zmtp1),
    ];

    /// The type `-T name` names, if netsift prints it.
    pub fn from_name(name: &str) -> Option<PacketType> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|&(_, t)| t)
    }
}

impl Printer<'_> {
    /// A UDP payload under `-T t` (`cp` after the UDP header, `length` its length).
    pub(super) fn udp_forced(
        &mut self,
        t: PacketType,
        cp: &[u8],
        length: u32,
        ctx: &IpCtx,
        ports: (u16, u16),
    ) -> PResult {
        // Sun RPC prints its own addresses (the portmapper's call line).
        if t == PacketType::Rpc {
            return self.rpc_udp(cp, length, ctx);
        }
        // tcpdump's `udp_print` has no case for these: nothing after `IP `.
        if matches!(t, PacketType::Resp | PacketType::Carp | PacketType::Zmtp1) {
            return Ok(());
        }
        self.udp_addrs(ctx, Some(ports));
        match t {
            PacketType::Aodv => self.aodv(cp, length, ctx.is_v6()),
            PacketType::Domain => self.dns(cp, length, false, false),
            PacketType::Pgm | PacketType::PgmZmtp1 => self.pgm(cp, length, ctx),
            PacketType::Lmp => self.lmp(cp, length),
            PacketType::Cnfp => self.cnfp(cp),
            PacketType::Vat => self.vat(cp, length),
            PacketType::Rtp => self.rtp(cp, length),
            PacketType::Rtcp => self.rtcp_all(cp),
            PacketType::Ptp => self.ptp(cp, length),
            PacketType::Radius => self.radius(cp, length),
            PacketType::Snmp => self.snmp(cp, length),
            PacketType::Someip => self.someip(cp, length),
            PacketType::Tftp => self.tftp(cp, length),
            PacketType::Vxlan => self.vxlan(cp, length),
            PacketType::Wb => self.wb(cp, length),
            PacketType::Rpc | PacketType::Resp | PacketType::Carp | PacketType::Zmtp1 => Ok(()),
        }
    }

    /// A TCP payload under `-T t`: ZMTP/1.0, RESP and DNS are read, the
    /// other types print nothing more.
    pub(super) fn tcp_forced(&mut self, t: PacketType, payload: &[u8], length: u32) -> PResult {
        match t {
            PacketType::Zmtp1 => self.zmtp1(payload, length),
            PacketType::Resp => self.resp(payload, length),
            PacketType::Domain => self.dns(payload, length, true, false),
            _ => Ok(()),
        }
    }
}
