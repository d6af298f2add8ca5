//! sFlow version 5 datagrams (UDP port 6343), as tcpdump 4.99's `sflow_print`
//! prints them without `-v`: the agent and the length. The samples `-v` lists
//! are not decoded yet (with `-v` this prints what tcpdump prints without it).

use super::{g4, gv6, need, out, PResult, Printer};

/// version, agent address type, an IPv4 agent address, agent id, sequence
/// number, uptime, sample count (tcpdump's check, for IPv6 agents too).
const HEADER_LEN: u32 = 28;

impl Printer<'_> {
    /// `sflow_print`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn sflow(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "sflow";
        let version = g4(p, 0)?;
        if len < HEADER_LEN {
            out!(
                self,
                "sFlowv{version} [length {len} < {HEADER_LEN}] (invalid)"
            );
            return Ok(());
        }
        need(p, 0, HEADER_LEN as usize)?;
        if version != 5 {
            out!(self, "sFlow version {version} packet not supported");
            return Ok(());
        }
        // The agent's address is 4 bytes for IPv4, 16 for IPv6.
        let (family, agent, id) = if g4(p, 4)? == 1 {
            ("IPv4", self.host4(g4(p, 8)?.into()), g4(p, 12)?)
        } else {
            ("IPv6", self.host6(gv6(p, 8)?), g4(p, 24)?)
        };
        out!(
            self,
            "sFlowv{version}, {family} agent {agent}, agent-id {id}, length {len}"
        );
        Ok(())
    }
}
