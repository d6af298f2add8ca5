//! The followers' dynamic ports: what an FTP, SIP or RTSP control message
//! announces, read by `netsift-follow`'s own parsers (`ftp::announcements`,
//! `sip::parse`, `rtsp::parse`) from the TCP or UDP payload of an Ethernet
//! frame (`follow::segment`). Nothing here reads a protocol itself.
//!
//! `GetDynTCPDPortFromRTSP` is the seeds' Figure 7 function: no MBuf regions, the
//! port as its value; `GetDynTCPDPortFromFTP` and `GetDynUDPPortFromSIP` are its
//! FTP and SIP equivalents. `ftp_ports`, `sip_ports` and `rtsp_ports` write every
//! announced port into a 64-byte output: slot 0 the count `n` (0 to 7), slots
//! 1 to `n` the ports in the order announced without repeats, the rest 0. The
//! whole output is written on every call, so a packet that announces nothing
//! leaves no stale ports behind.
//!
//! Bounds: the parsers are linear in the payload; a port range (`client_port=
//! 1-65535`) contributes at most 7 ports, so the copying is at most 7 ports a
//! range. `ftp_ports` allocates nothing; the SIP and RTSP parsers return their
//! media and transport specs in a `Vec`, which allocates only for a payload
//! that parses as such a message with at least one of them (never for other
//! traffic).

use crate::args::put_slots;
use netsift_follow::rtsp::{self, PortRange};
use netsift_follow::segment::segment;
use netsift_follow::{ftp, sip};
use netsift_fpl::externs::{Call, ExternFn};
use netsift_wire::LinkType;

/// Output size of the `*_ports` functions: the count and seven ports.
pub const PORTS_OUT: usize = 64;
/// The most ports one call reports.
pub const MAX_PORTS: usize = PORTS_OUT / 8 - 1;

/// The TCP or UDP payload of an Ethernet frame (empty when it has none).
fn payload(frame: &[u8]) -> &[u8] {
    segment(LinkType::EN10MB, frame).map_or(&[], |s| s.payload)
}

/// Distinct ports in announcement order, at most [`MAX_PORTS`].
#[derive(Default)]
struct Ports {
    ports: [u16; MAX_PORTS],
    n: usize,
}

impl Ports {
    fn push(&mut self, p: u16) {
        if self.n < MAX_PORTS && p != 0 && !self.ports[..self.n].contains(&p) {
            self.ports[self.n] = p;
            self.n += 1;
        }
    }

    /// The first ports of a range: no more than fit, however wide it is.
    fn range(&mut self, r: Option<PortRange>) {
        if let Some(r) = r {
            (r.first..=r.last)
                .take(MAX_PORTS)
                .for_each(|p| self.push(p));
        }
    }

    /// Writes the count and the ports, zero-filled, and returns the count.
    fn write(&self, out: &mut [u8]) -> i64 {
        let mut slots = [0i64; MAX_PORTS + 1];
        slots[0] = self.n as i64;
        for (s, &p) in slots[1..].iter_mut().zip(&self.ports[..self.n]) {
            *s = i64::from(p);
        }
        put_slots(out, &slots);
        self.n as i64
    }
}

fn rtsp_of(frame: &[u8]) -> Ports {
    let mut ports = Ports::default();
    if let Some(msg) = rtsp::parse(payload(frame)) {
        for t in &msg.transports {
            ports.range(t.client_port);
            ports.range(t.server_port);
            ports.range(t.port);
        }
    }
    ports
}

fn sip_of(frame: &[u8]) -> Ports {
    let mut ports = Ports::default();
    if let Some(msg) = sip::parse(payload(frame)) {
        for m in &msg.media {
            // Stream k of an RTP description uses port + 2k and its RTCP
            // port + 2k + 1 (RFC 4566 §5.14); others port + k.
            let step = if m.is_rtp() { 2 } else { 1 };
            for k in 0..m.port_count.min(MAX_PORTS as u16) {
                let Some(p) = m.port.checked_add(k * step) else {
                    break;
                };
                ports.push(p);
                if k == 0 {
                    ports.push(m.rtcp_port.unwrap_or(0));
                } else if m.is_rtp() {
                    ports.push(p.checked_add(1).unwrap_or(0));
                }
            }
        }
    }
    ports
}

fn ftp_of(frame: &[u8]) -> Ports {
    let mut ports = Ports::default();
    ftp::announcements(payload(frame)).for_each(|a| ports.push(a.port));
    ports
}

/// `GetDynTCPDPortFromRTSP`: reads and writes nothing; returns the first port
/// of the first `client_port=` of the frame's RTSP `Transport:` headers, else of
/// the first `server_port=`, else 0 (not RTSP, or no port announced).
pub fn rtsp_port() -> ExternFn {
    ExternFn::new("GetDynTCPDPortFromRTSP", 0, 0, |call: Call<'_>| {
        let Some(msg) = rtsp::parse(payload(call.packet)) else {
            return 0;
        };
        let first = |pick: fn(&rtsp::TransportSpec<'_>) -> Option<PortRange>| {
            msg.transports
                .iter()
                .find_map(pick)
                .map(|r| i64::from(r.first))
        };
        first(|t| t.client_port)
            .or_else(|| first(|t| t.server_port))
            .unwrap_or(0)
    })
}

/// `GetDynTCPDPortFromFTP`: reads and writes nothing; the port of the frame's
/// first FTP announcement (`227`, `229`, `PORT`, `EPRT`), else 0. Figure 7's
/// function for FTP's data connections.
pub fn ftp_port() -> ExternFn {
    first_port_fn("GetDynTCPDPortFromFTP", ftp_of)
}

/// `GetDynUDPPortFromSIP`: reads and writes nothing; the RTP port of the first
/// `m=` line of the frame's SIP message's SDP body, else 0.
pub fn sip_port() -> ExternFn {
    first_port_fn("GetDynUDPPortFromSIP", sip_of)
}

fn first_port_fn(name: &str, of: fn(&[u8]) -> Ports) -> ExternFn {
    ExternFn::new(name, 0, 0, move |call: Call<'_>| {
        let ports = of(call.packet);
        ports.ports[..ports.n].first().map_or(0, |&p| i64::from(p))
    })
}

fn ports_fn(name: &str, of: fn(&[u8]) -> Ports) -> ExternFn {
    ExternFn::new(name, 0, PORTS_OUT, move |mut call: Call<'_>| {
        let ports = of(call.packet);
        ports.write(call.output())
    })
}

/// `rtsp_ports`: every `client_port`, `server_port` and multicast `port` of the
/// frame's RTSP `Transport:` headers, spec by spec.
pub fn rtsp_ports() -> ExternFn {
    ports_fn("rtsp_ports", rtsp_of)
}

/// `sip_ports`: the RTP and RTCP (or other media) ports of the frame's SIP
/// message's SDP body, `m=` line by `m=` line.
pub fn sip_ports() -> ExternFn {
    ports_fn("sip_ports", sip_of)
}

/// `ftp_ports`: the ports of the frame's FTP `227`, `229`, `PORT` and `EPRT`
/// lines.
pub fn ftp_ports() -> ExternFn {
    ports_fn("ftp_ports", ftp_of)
}
