//! tcpdump's `-T rpc`: every UDP payload taken as Sun RPC, a call printed as
//! a portmapper call (`sunrpc_print`: the xid in hex as the source port, the
//! procedure, and for SET, UNSET, GETPORT and CALLIT the program and
//! version), anything else as an NFS reply (`nfsreply_print`: the xid as the
//! destination port). Without it tcpdump decodes neither on port 111.

use super::super::{g4, need, out, IpCtx, PResult, Printer};

/// The portmapper's procedures (`proc2str`).
const PMAP_PROCS: [&str; 6] = ["null", "set", "unset", "getport", "dump", "call"];

impl Printer<'_> {
    /// The UDP payload `cp` of `length` bytes under `-T rpc`, in place of the
    /// addresses and ports and anything after them.
    pub(in crate::summary) fn rpc_udp(&mut self, cp: &[u8], length: u32, ctx: &IpCtx) -> PResult {
        let dir = g4(cp, 4)?;
        let (src, dst) = self.addr_str(&ctx.addrs);
        let named = self.opts.names.is_some();
        if dir != 0 {
            self.proto = "nfs";
            let xid = g4(cp, 0)?;
            let port = if named { "nfs" } else { "2049" };
            out!(self, "{src}.{port} > {dst}.{xid}: ");
            return self.nfs_reply_marked(cp, length, ctx);
        }
        self.proto = "sunrpc";
        // `struct sunrpc_msg`, which tcpdump checks whole first.
        need(cp, 0, 32)?;
        let xid = g4(cp, 0)?;
        let port = if named { "sunrpc" } else { "0x6f" };
        out!(self, "{src}.0x{xid:x} > {dst}.{port}: {length}");
        let proc_ = g4(cp, 20)?;
        match PMAP_PROCS.get(proc_ as usize) {
            Some(n) => out!(self, " {n}"),
            None => out!(self, "  proc #{proc_}"),
        }
        let rpcvers = g4(cp, 8)?;
        if rpcvers != 2 {
            out!(self, " [rpcver {rpcvers}]");
        }
        if matches!(proc_, 1 | 2 | 3 | 5) {
            let prog = g4(cp, 12)?;
            // Without -n tcpdump names the program with `getrpcbynumber`
            // where it is built with it; 4.99.3 on a glibc without Sun RPC
            // headers (Debian's) is not, and prints its `#N`.
            if named {
                out!(self, " #{prog}");
            } else {
                out!(self, " {prog}");
            }
            let vers = g4(cp, 16)?;
            out!(self, ".{vers}");
        }
        Ok(())
    }
}
