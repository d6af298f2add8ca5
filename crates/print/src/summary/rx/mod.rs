//! Rx, the RPC transport of AFS (UDP ports 7000 to 7009), as tcpdump 4.99's
//! `rx_print` prints it: the packet type, with `-v` the sequence and serial
//! numbers (`-vv` the call and flags), acks, and the calls of the AFS
//! services with their arguments (`fields.rs`, `services.rs`). Replies are
//! decoded by the opcode of their call, which a bounded cache remembers as
//! tcpdump's does (64 calls, [`RxCache`]).

mod fields;
mod services;
mod tables;

use super::{g1, g2, g4, need, out, IpAddrs, IpCtx, PResult, Printer, Trunc};

/// The Rx header's size.
const HDR: usize = 28;
const DATA: u8 = 1;
const ACK: u8 = 2;
const ABORT: u8 = 4;
const CLIENT_INITIATED: u8 = 1;
/// tcpdump's `RX_CACHE_SIZE`.
const CACHE_SIZE: usize = 64;

/// How a decoder stopped early: tcpdump's longjmp out of the whole packet on
/// a failed read (`[|rx]`, no length after it), or a service's own `goto
/// trunc` (`[|fs]`, then the length).
#[derive(Debug)]
enum Stop {
    Jump,
    Svc,
}

impl From<Trunc> for Stop {
    fn from(_: Trunc) -> Stop {
        Stop::Jump
    }
}

type R<T = ()> = Result<T, Stop>;

/// One remembered call (`rx_cache_entry`).
#[derive(Clone, Copy, Debug, Default)]
struct Call {
    callnum: u32,
    client: u32,
    server: u32,
    dport: u16,
    service: u16,
    opcode: u32,
}

/// The last calls seen, to name the opcode of their replies: a ring of
/// [`CACHE_SIZE`] entries, so a capture cannot grow it.
#[derive(Debug)]
pub(crate) struct RxCache {
    calls: [Call; CACHE_SIZE],
    next: usize,
    hint: usize,
}

impl Default for RxCache {
    fn default() -> Self {
        RxCache {
            calls: [Call::default(); CACHE_SIZE],
            next: 0,
            hint: 0,
        }
    }
}

/// The 32-bit source and destination tcpdump reads through its `struct ip`
/// pointer: the IPv4 addresses, or for IPv6 the bytes at the same offsets
/// (inside the source address).
fn ip_pair(addrs: &IpAddrs) -> (u32, u32) {
    match *addrs {
        IpAddrs::V4(s, d) => (u32::from(s), u32::from(d)),
        IpAddrs::V6(s, _) => {
            let o = s.octets();
            let w = |i: usize| u32::from_be_bytes([o[i], o[i + 1], o[i + 2], o[i + 3]]);
            (w(4), w(8))
        }
    }
}

impl Printer<'_> {
    /// `rx_print`: `length` bytes of UDP payload, `p` captured.
    pub(super) fn rx(
        &mut self,
        p: &[u8],
        length: u32,
        sport: u16,
        dport: u16,
        ctx: &IpCtx,
    ) -> PResult {
        self.proto = "rx";
        if p.len() < HDR {
            out!(self, " [|rx] ({length})");
            return Ok(());
        }
        let ty = g1(p, 20)?;
        match tables::name(tables::RX_TYPES, u32::from(ty)) {
            Some(n) => out!(self, " rx {n}"),
            None => out!(self, " rx type {ty}"),
        }
        let flags = g1(p, 21)?;
        let v = self.opts.verbose;
        if v > 0 {
            if v > 1 {
                out!(self, " cid {:08x} call# {}", g4(p, 4)?, g4(p, 8)?);
            }
            out!(self, " seq {} ser {}", g4(p, 12)?, g4(p, 16)?);
            if v > 2 {
                out!(self, " secindex {} serviceid {}", g1(p, 23)?, g2(p, 26)?);
            }
            if v > 1 {
                self.rx_flags(ty, flags);
            }
        }
        let seq = g4(p, 12)?;
        let r = if ty == DATA && seq == 1 && flags & CLIENT_INITIATED != 0 {
            self.rx_cache_insert(p, ctx, dport)?;
            self.rx_call(p, length, dport)
        } else if ((ty == DATA && seq == 1) || ty == ABORT) && flags & CLIENT_INITIATED == 0 {
            match self.rx_cache_find(p, ctx, sport)? {
                Some(op) => self.rx_reply(p, length, sport, op),
                None => Ok(()),
            }
        } else if ty == ACK {
            self.rx_ack(p, length)
        } else {
            Ok(())
        };
        match r {
            Err(Stop::Jump) => return Err(Trunc),
            Err(Stop::Svc) | Ok(()) => {}
        }
        out!(self, " ({length})");
        Ok(())
    }

    /// The `-vv` flags: ` <client-init>,<last-pckt>`.
    fn rx_flags(&mut self, ty: u8, flags: u8) {
        const FLAGS: [(u8, u8, &str); 7] = [
            (1, 0, "client-init"),
            (2, 0, "req-ack"),
            (4, 0, "last-pckt"),
            (8, 0, "more-pckts"),
            (16, 0, "free-pckt"),
            (32, ACK, "slow-start"),
            (32, DATA, "jumbogram"),
        ];
        let mut first = true;
        for (bit, only, name) in FLAGS {
            if flags & bit != 0 && (only == 0 || ty == only) {
                self.out.push_str(if first { " " } else { "," });
                first = false;
                out!(self, "<{name}>");
            }
        }
    }

    fn rx_cache_insert(&mut self, p: &[u8], ctx: &IpCtx, dport: u16) -> PResult {
        if need(p, HDR, 4).is_err() {
            return Ok(());
        }
        let (client, server) = ip_pair(&ctx.addrs);
        let call = Call {
            callnum: g4(p, 8)?,
            client,
            server,
            dport,
            service: g2(p, 26)?,
            opcode: g4(p, HDR)?,
        };
        let c = &mut self.tcp.rx;
        c.calls[c.next] = call;
        c.next = (c.next + 1) % CACHE_SIZE;
        Ok(())
    }

    /// The opcode of the call this reply answers, searching from where the
    /// last search succeeded.
    fn rx_cache_find(&mut self, p: &[u8], ctx: &IpCtx, sport: u16) -> PResult<Option<u32>> {
        let (sip, clip) = ip_pair(&ctx.addrs);
        let callnum = g4(p, 8)?;
        let service = g2(p, 26)?;
        let c = &mut self.tcp.rx;
        let mut i = c.hint;
        loop {
            let e = c.calls[i];
            if e.callnum == callnum
                && e.client == clip
                && e.server == sip
                && e.service == service
                && e.dport == sport
            {
                c.hint = i;
                return Ok(Some(e.opcode));
            }
            i = (i + 1) % CACHE_SIZE;
            if i == c.hint {
                return Ok(None);
            }
        }
    }

    /// `rx_ack_print`.
    fn rx_ack(&mut self, p: &[u8], length: u32) -> R {
        if (length as usize) < HDR {
            return Ok(());
        }
        let a = HDR;
        if need(p, a, 18).is_err() {
            out!(self, " [|ack]");
            return Err(Stop::Svc);
        }
        if self.opts.verbose > 2 {
            out!(self, " bufspace {} maxskew {}", g2(p, a)?, g2(p, a + 2)?);
        }
        let first = g4(p, a + 4)?;
        let reason = g1(p, a + 16)?;
        out!(self, " first {first} serial {} reason ", g4(p, a + 12)?);
        match tables::name(tables::ACK_REASONS, u32::from(reason)) {
            Some(n) => out!(self, "{n}"),
            None => out!(self, "#{reason}"),
        }
        let n = g1(p, a + 17)? as usize;
        let mut at = a + 18;
        if n != 0 {
            if need(p, at, n).is_err() {
                out!(self, " [|ack]");
                return Err(Stop::Svc);
            }
            let acks = &p[at..at + n];
            self.rx_ack_ranges(acks, first, 1, "acked");
            self.rx_ack_ranges(acks, first, 0, "nacked");
            at += n;
        }
        at += 3;
        if self.opts.verbose > 1 {
            for name in ["ifmtu", "maxmtu", "rwind", "maxpackets"] {
                // TRUNCRET: stop quietly unless more than 4 bytes are left.
                if p.len() < at + 4 {
                    return Ok(());
                }
                out!(self, " {name} {}", g4(p, at)?);
                at += 4;
            }
        }
        Ok(())
    }

    /// The runs of packets whose ack byte is `kind`: ` acked 1-3,5`.
    fn rx_ack_ranges(&mut self, acks: &[u8], first: u32, kind: u8, name: &str) {
        let (mut start, mut last) = (-2i64, -2i64);
        let num = |i: i64| first.wrapping_add(i as u32);
        for (i, &b) in acks.iter().enumerate() {
            let i = i as i64;
            if b == kind {
                if last == -2 {
                    out!(self, " {name} {}", num(i));
                    start = i;
                } else if last != i - 1 {
                    out!(self, ",{}", num(i));
                    start = i;
                }
                last = i;
            } else if last == i - 1 && start != last {
                out!(self, "-{}", num(i - 1));
            }
        }
        let i = acks.len() as i64;
        if last == i - 1 && start != last {
            out!(self, "-{}", num(i - 1));
        }
    }
}
