//! sFlow version 5 datagrams (UDP port 6343), as tcpdump 4.99's `sflow_print`
//! prints them: the agent and the length without `-v`; with it the header's
//! counters and every sample (`records.rs` prints the samples' records).

mod records;

use super::{g4, gv6, need, out, tail, PResult, Printer};

/// version, agent address type, an IPv4 agent address, agent id, sequence
/// number, uptime, sample count.
const HEADER_LEN: u32 = 28;
/// The same with an IPv6 agent address.
const V6_HEADER_LEN: u32 = 40;

/// Why a sample's decoding stopped: tcpdump's `goto invalid` (which the
/// datagram's loop turns into ` (invalid)`) or a read past the capture.
pub(super) enum Stop {
    Invalid,
    Truncated,
}

impl From<super::Trunc> for Stop {
    fn from(_: super::Trunc) -> Stop {
        Stop::Truncated
    }
}

pub(super) type SResult = Result<(), Stop>;

/// tcpdump's check that `len` bytes are left for a structure of `size`.
pub(super) fn fits(len: u32, size: u32) -> SResult {
    if len < size {
        Err(Stop::Invalid)
    } else {
        Ok(())
    }
}

impl Printer<'_> {
    /// `sflow_print`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn sflow(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "sflow";
        let ip_version = g4(p, 4)?;
        if (len < HEADER_LEN && ip_version == 1) || (len < V6_HEADER_LEN && ip_version == 2) {
            out!(
                self,
                "sFlowv{} [length {len} < {HEADER_LEN}] (invalid)",
                g4(p, 0)?
            );
            return Ok(());
        }
        need(p, 0, HEADER_LEN as usize)?;
        let version = g4(p, 0)?;
        if version != 5 {
            out!(self, "sFlow version {version} packet not supported");
            return Ok(());
        }
        // The agent's address is 4 bytes for IPv4, 16 for IPv6 (any other
        // type is read as IPv6, as tcpdump does).
        let (family, agent, rest, hlen) = if ip_version == 1 {
            ("IPv4", self.host4(g4(p, 8)?.into()), 12, HEADER_LEN)
        } else {
            ("IPv6", self.host6(gv6(p, 8)?), 24, V6_HEADER_LEN)
        };
        let id = g4(p, rest)?;
        if self.opts.verbose < 1 {
            out!(
                self,
                "sFlowv{version}, {family} agent {agent}, agent-id {id}, length {len}"
            );
            return Ok(());
        }
        let (seq, uptime, samples) = (g4(p, rest + 4)?, g4(p, rest + 8)?, g4(p, rest + 12)?);
        out!(
            self,
            "sFlowv{version}, {family} agent {agent}, agent-id {id}, seqnum {seq}, \
             uptime {uptime}, samples {samples}, length {len}"
        );
        if len < hlen {
            return self.sflow_invalid(p, 0, len).map_err(|_| super::Trunc);
        }
        self.sflow_samples(p, hlen as usize, len - hlen, samples)
            .map_err(|_| super::Trunc)
    }

    /// The samples of a datagram: `nsamples` in `tlen` bytes from `at`. On an
    /// invalid sample tcpdump still checks the rest of the datagram is
    /// captured, so its `[|sflow]` wins over ` (invalid)`.
    fn sflow_samples(&mut self, p: &[u8], mut at: usize, mut tlen: u32, n: u32) -> SResult {
        let mut n = n;
        while n > 0 && tlen > 0 {
            let kind = g4(p, at)? & 0x0fff;
            let slen = g4(p, at + 4)?;
            if tlen < 8 {
                return self.sflow_invalid(p, at, tlen);
            }
            at += 8;
            tlen -= 8;
            let name = match kind {
                1 => "flow sample",
                2 => "counter sample",
                3 => "expanded flow sample",
                4 => "expanded counter sample",
                _ => "Unknown",
            };
            out!(self, "\n\t{name} ({kind}), length {slen},");
            if kind == 0 || slen == 0 {
                return Ok(());
            }
            if tlen < slen {
                return self.sflow_invalid(p, at, tlen);
            }
            need(p, at, slen as usize)?;
            let r = match kind {
                1 => self.sflow_flow_sample(p, at, tlen, false),
                2 => self.sflow_counter_sample(p, at, tlen, false),
                3 => self.sflow_flow_sample(p, at, tlen, true),
                4 => self.sflow_counter_sample(p, at, tlen, true),
                _ => {
                    if self.opts.verbose <= 1 {
                        self.unknown_data(p, at, slen as usize, "\n\t    ");
                    }
                    Ok(())
                }
            };
            match r {
                Err(Stop::Invalid) => return self.sflow_invalid(p, at, tlen),
                r => r?,
            }
            at += slen as usize;
            tlen -= slen;
            n -= 1;
        }
        Ok(())
    }

    /// tcpdump's `invalid:` label: ` (invalid)`, then the check that the
    /// `tlen` bytes left from `at` were captured.
    fn sflow_invalid(&mut self, p: &[u8], at: usize, tlen: u32) -> SResult {
        out!(self, " (invalid)");
        if tail(p, at).len() < tlen as usize {
            return Err(Stop::Truncated);
        }
        Ok(())
    }
}
