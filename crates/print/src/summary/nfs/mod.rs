//! NFS over Sun RPC, as tcpdump 4.99's `print-nfs.c` prints it: a call to
//! port 2049 (UDP, or TCP after its record mark) with its procedure and
//! arguments, a reply from it with the results of the call it answers, found
//! through the calls remembered in [`XidMap`].

mod call;
mod fh;
mod reply;
mod rpc;

use super::{g4, out, IpAddrs, IpCtx, PResult, Printer};
use std::fmt::Write;

/// How many calls are remembered to decode their replies: tcpdump's
/// `XIDMAPSIZE`, a ring, so a capture cannot grow it.
const XIDMAP_SIZE: usize = 64;

/// One remembered call (`xid_map_entry`).
#[derive(Clone, Copy, Debug, Default)]
struct Call {
    xid: u32,
    /// 0 for an empty entry, which matches nothing.
    ipver: u8,
    client: [u8; 16],
    server: [u8; 16],
    proc_: u32,
    vers: u32,
}

/// The last calls seen, searched from where the last match was found, as
/// tcpdump's `xid_map` is.
#[derive(Debug)]
pub(crate) struct XidMap {
    calls: [Call; XIDMAP_SIZE],
    next: usize,
    hint: usize,
}

impl Default for XidMap {
    fn default() -> Self {
        XidMap {
            calls: [Call::default(); XIDMAP_SIZE],
            next: 0,
            hint: 0,
        }
    }
}

/// The IP version and the source and destination addresses, in 16 bytes.
fn ends(a: &IpAddrs) -> (u8, [u8; 16], [u8; 16]) {
    let mut s = [0u8; 16];
    let mut d = [0u8; 16];
    match *a {
        IpAddrs::V4(x, y) => {
            s[..4].copy_from_slice(&x.octets());
            d[..4].copy_from_slice(&y.octets());
            (4, s, d)
        }
        IpAddrs::V6(x, y) => (6, x.octets(), y.octets()),
    }
}

impl XidMap {
    /// `xid_map_enter`: remembers the call `xid` from the source of `a`.
    fn enter(&mut self, a: &IpAddrs, xid: u32, proc_: u32, vers: u32) {
        let (ipver, client, server) = ends(a);
        self.calls[self.next] = Call {
            xid,
            ipver,
            client,
            server,
            proc_,
            vers,
        };
        self.next = (self.next + 1) % XIDMAP_SIZE;
    }

    /// `xid_map_find`: the procedure and version of the call `xid` that the
    /// reply from the source of `a` answers.
    fn find(&mut self, a: &IpAddrs, xid: u32) -> Option<(u32, u32)> {
        let (ipver, src, dst) = ends(a);
        let mut i = self.hint;
        loop {
            let c = &self.calls[i];
            if c.ipver == ipver && c.xid == xid && c.server == src && c.client == dst {
                self.hint = i;
                return Some((c.proc_, c.vers));
            }
            i = (i + 1) % XIDMAP_SIZE;
            if i == self.hint {
                return None;
            }
        }
    }
}

/// NFS's procedures, v3's numbers (`NFSPROC_*`).
pub(super) mod procs {
    pub(crate) const GETATTR: u32 = 1;
    pub(crate) const SETATTR: u32 = 2;
    pub(crate) const LOOKUP: u32 = 3;
    pub(crate) const ACCESS: u32 = 4;
    pub(crate) const READLINK: u32 = 5;
    pub(crate) const READ: u32 = 6;
    pub(crate) const WRITE: u32 = 7;
    pub(crate) const CREATE: u32 = 8;
    pub(crate) const MKDIR: u32 = 9;
    pub(crate) const SYMLINK: u32 = 10;
    pub(crate) const MKNOD: u32 = 11;
    pub(crate) const REMOVE: u32 = 12;
    pub(crate) const RMDIR: u32 = 13;
    pub(crate) const RENAME: u32 = 14;
    pub(crate) const LINK: u32 = 15;
    pub(crate) const READDIR: u32 = 16;
    pub(crate) const READDIRPLUS: u32 = 17;
    pub(crate) const FSSTAT: u32 = 18;
    pub(crate) const FSINFO: u32 = 19;
    pub(crate) const PATHCONF: u32 = 20;
    pub(crate) const COMMIT: u32 = 21;
    pub(crate) const NOOP: u32 = 25;
}

/// `nfsproc_str`, indexed by v3's number.
const PROC_NAMES: [&str; 22] = [
    "null",
    "getattr",
    "setattr",
    "lookup",
    "access",
    "readlink",
    "read",
    "write",
    "create",
    "mkdir",
    "symlink",
    "mknod",
    "remove",
    "rmdir",
    "rename",
    "link",
    "readdir",
    "readdirplus",
    "fsstat",
    "fsinfo",
    "pathconf",
    "commit",
];

/// v3's number of a procedure of `vers` (`nfsv3_procid` maps v2's, and any
/// version but 3 is taken as 2), and whether it is v3.
fn v3_proc(proc_: u32, vers: u32) -> (u32, bool) {
    use procs::*;
    const V2: [u32; 26] = [
        0, GETATTR, SETATTR, NOOP, LOOKUP, READLINK, READ, NOOP, WRITE, CREATE, REMOVE, RENAME,
        LINK, SYMLINK, MKDIR, RMDIR, READDIR, FSSTAT, NOOP, NOOP, NOOP, NOOP, NOOP, NOOP, NOOP,
        NOOP,
    ];
    let v3 = vers == 3;
    match V2.get(proc_ as usize) {
        Some(&p) if !v3 => (p, false),
        _ => (proc_, v3),
    }
}

/// ` name` of a procedure (`proc-N` for one tcpdump does not know).
fn proc_name(out: &mut String, proc_: u32) {
    match PROC_NAMES.get(proc_ as usize) {
        Some(n) => {
            let _ = write!(out, " {n}");
        }
        None if proc_ == procs::NOOP => out.push_str(" nop"),
        None => {
            let _ = write!(out, " proc-{proc_}");
        }
    }
}

/// Where a parse stopped: `Ok(Some(next offset))`, `Ok(None)` where tcpdump's
/// parser returns NULL (a length test failed: the caller prints the marker,
/// or not after an NFS error), `Err(Trunc)` where its read `longjmp`s.
pub(super) type Parsed = PResult<Option<usize>>;

/// `dp + n` for offsets computed from packet lengths (which may be far past
/// the packet: the next read fails).
pub(super) fn adv(dp: usize, n: u64) -> usize {
    dp.saturating_add(usize::try_from(n).unwrap_or(usize::MAX))
}

/// `roundup2(len, 4)` in 32 bits, wrapping as tcpdump's does.
fn round4(len: u32) -> u32 {
    len.wrapping_add(3) & !3
}

/// Whether `n` bytes from `at` are captured (`ND_TTEST_LEN`).
pub(super) fn have(b: &[u8], at: usize, n: u64) -> bool {
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    at.checked_add(n).is_some_and(|end| end <= b.len())
}

impl Printer<'_> {
    /// NFS over UDP, tested before the port table: `Some` when the datagram
    /// is a call to port 2049 or a reply from it (tcpdump's test in
    /// `udp_print`, which `-q` skips), having printed it.
    pub(super) fn nfs_udp(
        &mut self,
        cp: &[u8],
        length: u32,
        ports: (u16, u16),
        ctx: &IpCtx,
    ) -> Option<PResult> {
        let dir = g4(cp, 4).ok()?;
        let (sport, dport) = ports;
        if (dport == 2049 && dir == 0) || (sport == 2049 && dir == 1) {
            Some(self.nfs_msg(cp, length, dir, ctx, ""))
        } else {
            None
        }
    }

    /// NFS over TCP (port 2049, after the checks of the ports before it): the
    /// record mark, then the message, as `tcp_print` does.
    pub(super) fn nfs_tcp(
        &mut self,
        bp: &[u8],
        length: u32,
        ports: (u16, u16),
        ctx: &IpCtx,
    ) -> PResult {
        let Ok(mark) = g4(bp, 0) else {
            return Ok(());
        };
        if length < 4 {
            return Ok(());
        }
        let fraglen = (mark & 0x7fff_ffff).min(length - 4);
        let rp = super::tail(bp, 4);
        let Ok(dir) = g4(rp, 4) else {
            return Ok(());
        };
        let (sport, dport) = ports;
        if (dport == 2049 && dir == 0) || (sport == 2049 && dir == 1) {
            self.nfs_msg(rp, fraglen, dir, ctx, ": ")
        } else {
            Ok(())
        }
    }

    fn nfs_msg(&mut self, rp: &[u8], length: u32, dir: u32, ctx: &IpCtx, lead: &str) -> PResult {
        let xid = g4(rp, 0)?;
        let kind = if dir == 0 { "request" } else { "reply" };
        out!(self, "{lead}NFS {kind} xid {xid} ");
        self.proto = "nfs";
        if dir == 0 {
            let r = self.nfs_request(rp, length, ctx);
            self.marked(r)
        } else {
            self.nfs_reply_marked(rp, length, ctx)
        }
    }

    /// `nfsreply_noaddr_print`, its marker printed.
    fn nfs_reply_marked(&mut self, rp: &[u8], length: u32, ctx: &IpCtx) -> PResult {
        let r = self.nfs_reply(rp, length, ctx);
        self.marked(r)
    }

    /// The end of a printer that returns `Ok(false)` at its `trunc` label.
    fn marked(&mut self, r: PResult<bool>) -> PResult {
        match r {
            // A length test failed: the marker, printed here.
            Ok(false) => {
                self.trunc();
                self.caught_trunc = true;
                Ok(())
            }
            Ok(true) => Ok(()),
            Err(t) => Err(t),
        }
    }
}

/// `nfsv3_writemodes`, or tcpdump's `#N` (signed) for another.
pub(super) fn write_mode(m: u32) -> String {
    match m {
        0 => "unstable".into(),
        1 => "datasync".into(),
        2 => "filesync".into(),
        _ => format!("#{}", m as i32),
    }
}

/// `type2str`.
pub(super) fn file_type(t: u32) -> Option<&'static str> {
    Some(match t {
        0 => "NON",
        1 => "REG",
        2 => "DIR",
        3 => "BLK",
        4 => "CHR",
        5 => "LNK",
        7 => "FIFO",
        _ => return None,
    })
}
