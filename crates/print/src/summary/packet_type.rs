//! tcpdump's `-T TYPE` (`ndo_packettype`): the payload of every UDP datagram, and of
//! every TCP segment for the TCP types, is read as that protocol whatever its
//! ports. As in tcpdump's `udp_print` and `tcp_print`, a forced type decides the
//! whole payload: a UDP datagram gets its addresses and the forced printer only
//! (no checksum verdict, and `-q` does not stop it), and a type with no printer on
//! that transport prints nothing after the header (`-T resp` on UDP prints `IP `,
//! `-T snmp` on TCP ends after `length N`).

use super::{IpCtx, PResult, Printer};

/// The `-T` types netsift prints (tcpdump knows more; the CLI refuses the rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketType {
    /// Ad hoc On-Demand Distance Vector routing.
    Aodv,
    /// DNS, over UDP and TCP.
    Domain,
    /// Pragmatic General Multicast over UDP.
    Pgm,
    /// Precision Time Protocol.
    Ptp,
    /// RADIUS.
    Radius,
    /// Redis's RESP, over TCP.
    Resp,
    /// Sun RPC: a call as the portmapper's, anything else as an NFS reply.
    Rpc,
    /// SNMP.
    Snmp,
    /// SOME/IP.
    Someip,
    /// TFTP.
    Tftp,
    /// VXLAN.
    Vxlan,
    /// The LBL whiteboard.
    Wb,
}

impl PacketType {
    /// Every type with the name `-T` takes.
    pub const ALL: &'static [(&'static str, PacketType)] = &[
        ("aodv", PacketType::Aodv),
        ("domain", PacketType::Domain),
        ("pgm", PacketType::Pgm),
        ("ptp", PacketType::Ptp),
        ("radius", PacketType::Radius),
        ("resp", PacketType::Resp),
        ("rpc", PacketType::Rpc),
        ("snmp", PacketType::Snmp),
        ("someip", PacketType::Someip),
        ("tftp", PacketType::Tftp),
        ("vxlan", PacketType::Vxlan),
        ("wb", PacketType::Wb),
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
        // tcpdump's `udp_print` has no case for RESP: nothing after `IP `.
        if t == PacketType::Resp {
            return Ok(());
        }
        self.udp_addrs(ctx, Some(ports));
        match t {
            PacketType::Aodv => self.aodv(cp, length, ctx.is_v6()),
            PacketType::Domain => self.dns(cp, length, false, false),
            PacketType::Pgm => self.pgm(cp, length, ctx),
            PacketType::Ptp => self.ptp(cp, length),
            PacketType::Radius => self.radius(cp, length),
            PacketType::Snmp => self.snmp(cp, length),
            PacketType::Someip => self.someip(cp, length),
            PacketType::Tftp => self.tftp(cp, length),
            PacketType::Vxlan => self.vxlan(cp, length),
            PacketType::Wb => self.wb(cp, length),
            PacketType::Rpc | PacketType::Resp => Ok(()),
        }
    }

    /// A TCP payload under `-T t`: RESP and DNS are read, the other types
    /// print nothing more.
    pub(super) fn tcp_forced(&mut self, t: PacketType, payload: &[u8], length: u32) -> PResult {
        match t {
            PacketType::Resp => self.resp(payload, length),
            PacketType::Domain => self.dns(payload, length, true, false),
            _ => Ok(()),
        }
    }
}
