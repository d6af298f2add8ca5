//! NFS replies (`nfsreply_noaddr_print` and `interp_reply`): the RPC verdict,
//! then, for a call remembered in the xid map, its procedure's results.

mod attr;

use super::procs::*;
use super::{adv, have, proc_name, v3_proc, write_mode, Parsed};
use crate::summary::{g4, g8, out, IpCtx, PResult, Printer};

/// `status2str`: NFS v2 and v3 errors (FreeBSD's texts).
fn status_text(e: u32) -> Option<&'static str> {
    Some(match e {
        1 => "Operation not permitted",
        2 => "No such file or directory",
        5 => "Input/output error",
        6 => "Device not configured",
        11 => "Resource deadlock avoided",
        12 => "Cannot allocate memory",
        13 => "Permission denied",
        17 => "File exists",
        18 => "Cross-device link",
        19 => "Operation not supported by device",
        20 => "Not a directory",
        21 => "Is a directory",
        22 => "Invalid argument",
        26 => "Text file busy",
        27 => "File too large",
        28 => "No space left on device",
        30 => "Read-only file system",
        31 => "Too many links",
        45 => "Operation not supported",
        62 => "Too many levels of symbolic links",
        63 => "File name too long",
        66 => "Directory not empty",
        69 => "Disc quota exceeded",
        70 => "Stale NFS file handle",
        71 => "Too many levels of remote in path",
        99 => "Write cache flushed to disk",
        10001 => "Illegal NFS file handle",
        10002 => "Update synchronization mismatch",
        10003 => "READDIR/READDIRPLUS cookie is stale",
        10004 => "Operation not supported",
        10005 => "Buffer or request is too small",
        10006 => "Unspecified error on server",
        10007 => "Object of that type not supported",
        10008 => "Request couldn't be completed in time",
        _ => return None,
    })
}

/// `sunrpc_auth_str`.
fn auth_text(why: u32) -> Option<&'static str> {
    Some(match why {
        0 => "OK",
        1 => "Bogus Credentials (seal broken)",
        2 => "Rejected Credentials (client should begin new session)",
        3 => "Bogus Verifier (seal broken)",
        4 => "Verifier expired or was replayed",
        5 => "Credentials are too weak",
        6 => "Bogus response verifier",
        7 => "Unknown failure",
        _ => return None,
    })
}

/// A reply's decoding: the printer, the message, and whether an NFS or RPC
/// error was printed (tcpdump's `nfserr`, which keeps the marker off a
/// length test that fails after it).
struct Rep<'p, 'a, 'b> {
    p: &'p mut Printer<'a>,
    rp: &'b [u8],
    err: bool,
    v: u8,
    /// `-q` (reached with `-T rpc` only): errors and some results left out.
    q: bool,
}

impl Printer<'_> {
    /// `nfsreply_noaddr_print`; `Ok(false)` where it ends at its `trunc` label
    /// with the marker due.
    pub(super) fn nfs_reply(&mut self, rp: &[u8], length: u32, ctx: &IpCtx) -> PResult<bool> {
        let Ok(stat) = g4(rp, 8) else {
            return Ok(false);
        };
        match stat {
            0 => {
                out!(self, "reply ok {length}");
                let xid = g4(rp, 0)?;
                if let Some((proc_, vers)) = self.tcp.nfs.find(&ctx.addrs, xid) {
                    let (v, q) = (self.opts.verbose, self.opts.quiet);
                    let mut r = Rep {
                        p: self,
                        rp,
                        err: false,
                        v,
                        q,
                    };
                    let done = r.interp(proc_, vers, length)?;
                    return Ok(done || r.err);
                }
            }
            1 => {
                out!(self, "reply ERR {length}: ");
                let Ok(rstat) = g4(rp, 12) else {
                    return Ok(false);
                };
                match rstat {
                    0 => {
                        let (Ok(lo), Ok(hi)) = (g4(rp, 16), g4(rp, 20)) else {
                            return Ok(false);
                        };
                        out!(self, "RPC Version mismatch ({lo}-{hi})");
                    }
                    1 => {
                        let Ok(why) = g4(rp, 16) else {
                            return Ok(false);
                        };
                        match auth_text(why) {
                            Some(t) => out!(self, "Auth {t}"),
                            None => out!(self, "Auth Invalid failure code {why}"),
                        }
                    }
                    _ => out!(self, "Unknown reason for rejecting rpc message {rstat}"),
                }
            }
            _ => out!(self, "reply Unknown rpc response code={stat} {length}"),
        }
        Ok(true)
    }
}

impl Rep<'_, '_, '_> {
    fn w(&self, at: usize) -> PResult<u32> {
        g4(self.rp, at)
    }

    /// `interp_reply`: `Ok(false)` where it jumps to its `trunc` label.
    fn interp(&mut self, proc_: u32, vers: u32, length: u32) -> PResult<bool> {
        let (proc_, v3) = v3_proc(proc_, vers);
        proc_name(&mut self.p.out, proc_);
        if !matches!(proc_, GETATTR..=COMMIT) {
            return Ok(true);
        }
        let Some(dp) = self.results(length)? else {
            return Ok(false);
        };
        let v = self.v;
        let r = match proc_ {
            // tcpdump asks these for the attributes' first fields only.
            GETATTR => self.attrstat(dp, u8::from(!self.q), v3)?,
            SETATTR if v3 => self.wccres(dp, v)?,
            SETATTR => self.attrstat(dp, u8::from(!self.q), false)?,
            LOOKUP if v3 => self.lookup3(dp)?,
            LOOKUP | CREATE | MKDIR if !v3 => self.diropres(dp)?,
            ACCESS => self.access(dp)?,
            READLINK => self.linkres(dp, v3)?,
            READ if v3 => self.read3(dp)?,
            READ => self.attrstat(dp, v, false)?,
            WRITE if v3 => self.write3(dp)?,
            WRITE => self.attrstat(dp, v, false)?,
            CREATE | MKDIR | MKNOD => self.createopres(dp, v)?,
            SYMLINK if v3 => self.createopres(dp, v)?,
            REMOVE | RMDIR if v3 => self.wccres(dp, v)?,
            SYMLINK | REMOVE | RMDIR | RENAME | LINK if !v3 => Some(self.status(dp)?.0),
            RENAME => self.rename_link3(dp, true)?,
            LINK => self.rename_link3(dp, false)?,
            READDIR if !v3 => self.rddires(dp)?,
            READDIR | READDIRPLUS => self.rddirres3(dp)?,
            FSSTAT => self.statfs(dp, v3)?,
            FSINFO => self.fsinfo(dp)?,
            PATHCONF => self.pathconf(dp)?,
            _ => {
                // COMMIT.
                let Some(dp) = self.wccres(dp, v)? else {
                    return Ok(false);
                };
                if v > 1 {
                    let verf = g8(self.rp, dp)?;
                    out!(self.p, " verf {verf:x}");
                }
                Some(dp)
            }
        };
        Ok(r.is_some())
    }

    /// `parserep`: past the verifier to the results of an accepted call;
    /// `None` after printing an RPC error (`ar_stat`), or for a verifier
    /// longer than the message.
    fn results(&mut self, length: u32) -> Parsed {
        let dp = 12usize;
        let len = self.w(dp + 4)?;
        if len >= length {
            return Ok(None);
        }
        let dp = adv(dp, (u64::from(len) + 11) / 4 * 4);
        let astat = self.w(dp)?;
        if astat != 0 {
            const NAMES: [&str; 5] = [
                "PROG_UNAVAIL",
                "PROG_MISMATCH",
                "PROC_UNAVAIL",
                "GARBAGE_ARGS",
                "SYSTEM_ERR",
            ];
            match NAMES.get(astat as usize - 1) {
                Some(n) => out!(self.p, " {n}"),
                None => out!(self.p, " ar_stat {astat}"),
            }
            self.err = true;
            return Ok(None);
        }
        Ok(Some(dp + 4))
    }

    /// `parsestatus`: the offset past the status and whether it is an error
    /// (printed).
    fn status(&mut self, dp: usize) -> PResult<(usize, bool)> {
        let e = self.w(dp)?;
        if e != 0 && !self.q {
            match status_text(e) {
                Some(t) => out!(self.p, " ERROR: {t}"),
                None => out!(self.p, " ERROR: unk {e}"),
            }
        }
        if e != 0 {
            self.err = true;
        }
        Ok((dp + 4, e != 0))
    }

    /// `parseattrstat`.
    fn attrstat(&mut self, dp: usize, verbose: u8, v3: bool) -> Parsed {
        let (dp, er) = self.status(dp)?;
        if er {
            return Ok(Some(dp));
        }
        self.fattr(dp, verbose, v3)
    }

    /// `parsediropres` (v2): a handle and its attributes.
    fn diropres(&mut self, dp: usize) -> Parsed {
        let (dp, er) = self.status(dp)?;
        if er {
            return Ok(Some(dp));
        }
        let Some(dp) = self.p.nfs_fh(self.rp, dp, false)? else {
            return Ok(None);
        };
        self.fattr(dp, self.v, false)
    }

    /// `parselinkres`: the target of a symbolic link.
    fn linkres(&mut self, dp: usize, v3: bool) -> Parsed {
        let (mut dp, er) = self.status(dp)?;
        if er {
            return Ok(Some(dp));
        }
        if v3 {
            let Some(d) = self.post_op(dp, self.v)? else {
                return Ok(None);
            };
            dp = d;
        }
        self.p.out.push(' ');
        self.p.nfs_name(self.rp, dp)
    }

    /// `parsestatfs`.
    fn statfs(&mut self, dp: usize, v3: bool) -> Parsed {
        let (mut dp, er) = self.status(dp)?;
        if (!v3 && er) || self.q {
            return Ok(Some(dp));
        }
        if v3 {
            if self.v > 0 {
                self.p.out.push_str(" POST:");
            }
            let Some(d) = self.post_op(dp, self.v)? else {
                return Ok(None);
            };
            dp = d;
        }
        if !have(self.rp, dp, if v3 { 52 } else { 20 }) {
            return Ok(None);
        }
        let w = |i: usize| g4(self.rp, dp + i);
        let d = |i: usize| g8(self.rp, dp + i);
        if v3 {
            let (t, f, a) = (d(0)?, d(8)?, d(16)?);
            out!(self.p, " tbytes {t} fbytes {f} abytes {a}");
            if self.v > 0 {
                let (t, f, a, i) = (d(24)?, d(32)?, d(40)?, w(48)?);
                out!(self.p, " tfiles {t} ffiles {f} afiles {a} invar {i}");
            }
        } else {
            let (t, b, n, f, a) = (w(0)?, w(4)?, w(8)?, w(12)?, w(16)?);
            out!(
                self.p,
                " tsize {t} bsize {b} blocks {n} bfree {f} bavail {a}"
            );
        }
        Ok(Some(dp))
    }

    /// `parserddires` (v2).
    fn rddires(&mut self, dp: usize) -> Parsed {
        let (dp, er) = self.status(dp)?;
        if er || self.q {
            return Ok(Some(dp));
        }
        let (off, size) = (self.w(dp)?, self.w(dp + 4)?);
        out!(self.p, " offset 0x{off:x} size {size} ");
        if self.w(dp + 8)? != 0 {
            self.p.out.push_str(" eof");
        }
        Ok(Some(dp))
    }

    /// `parsecreateopres`.
    fn createopres(&mut self, dp: usize, verbose: u8) -> Parsed {
        let (dp, er) = self.status(dp)?;
        if er {
            return self.wcc_data(dp, verbose);
        }
        if self.w(dp)? == 0 {
            return Ok(Some(dp + 4));
        }
        let Some(mut dp) = self.p.nfs_fh(self.rp, dp + 4, true)? else {
            return Ok(None);
        };
        if verbose > 0 {
            let Some(d) = self.post_op(dp, verbose)? else {
                return Ok(None);
            };
            dp = d;
            if self.v > 1 {
                self.p.out.push_str(" dir attr:");
                return self.wcc_data(dp, verbose);
            }
        }
        Ok(Some(dp))
    }

    /// `parsev3rddirres`.
    fn rddirres3(&mut self, dp: usize) -> Parsed {
        let Some((dp, er)) = self.status_post(dp, " POST:")? else {
            return Ok(None);
        };
        if er {
            return Ok(Some(dp));
        }
        if self.v > 0 {
            let (x, y) = (self.w(dp)?, self.w(dp + 4)?);
            out!(self.p, " verf {x:08x}{y:08x}");
            return Ok(Some(dp + 8));
        }
        Ok(Some(dp))
    }

    /// LOOKUP v3: the handle found and its attributes, and with `-vv` the
    /// directory's.
    fn lookup3(&mut self, dp: usize) -> Parsed {
        let v = self.v;
        let (mut dp, er) = self.status(dp)?;
        if !er {
            let Some(d) = self.p.nfs_fh(self.rp, dp, true)? else {
                return Ok(None);
            };
            let Some(d) = self.post_op(d, v)? else {
                return Ok(None);
            };
            dp = d;
        }
        if v > 1 {
            self.p.out.push_str(" post dattr:");
            return self.post_op(dp, v);
        }
        Ok(Some(dp))
    }

    fn access(&mut self, dp: usize) -> Parsed {
        let Some((dp, er)) = self.status_post(dp, " attr:")? else {
            return Ok(None);
        };
        if !er {
            let c = self.w(dp)?;
            out!(self.p, " c {c:04x}");
        }
        Ok(Some(dp))
    }

    fn read3(&mut self, dp: usize) -> Parsed {
        let Some((dp, er)) = self.status_post(dp, "")? else {
            return Ok(None);
        };
        if !er && self.v > 0 {
            let n = self.w(dp)?;
            out!(self.p, " {n} bytes");
            if self.w(dp + 4)? != 0 {
                self.p.out.push_str(" EOF");
            }
        }
        Ok(Some(dp))
    }

    /// WRITE v3: the file's attributes, the count, with `-vv` how it was
    /// committed and the write verifier.
    fn write3(&mut self, dp: usize) -> Parsed {
        let (dp, er) = self.status(dp)?;
        let Some(dp) = self.wcc_data(dp, self.v)? else {
            return Ok(None);
        };
        if !er && self.v > 0 {
            let n = self.w(dp)?;
            out!(self.p, " {n} bytes");
            if self.v > 1 {
                let mode = self.w(dp + 4)?;
                out!(self.p, " <{}>", write_mode(mode));
                let verf = g8(self.rp, dp + 8)?;
                out!(self.p, " verf {verf:x}");
            }
        }
        Ok(Some(dp))
    }

    /// RENAME v3 (`rename`: the two directories' `wcc_data`) and LINK v3
    /// (the file's `post_op_attr`, then the directory's `wcc_data`), printed
    /// with `-v`.
    fn rename_link3(&mut self, dp: usize, rename: bool) -> Parsed {
        let (dp, _) = self.status(dp)?;
        if self.v == 0 {
            return Ok(Some(dp));
        }
        let (first, second) = if rename {
            (" from:", " to:")
        } else {
            (" file POST:", " dir:")
        };
        self.p.out.push_str(first);
        let first = if rename {
            self.wcc_data(dp, self.v)?
        } else {
            self.post_op(dp, self.v)?
        };
        let Some(dp) = first else {
            return Ok(None);
        };
        self.p.out.push_str(second);
        self.wcc_data(dp, self.v)
    }

    fn fsinfo(&mut self, dp: usize) -> Parsed {
        let Some((dp, er)) = self.status_post(dp, " POST:")? else {
            return Ok(None);
        };
        if er {
            return Ok(Some(dp));
        }
        if !have(self.rp, dp, 48) {
            return Ok(None);
        }
        let w = |i: usize| g4(self.rp, dp + i);
        let (rtmax, rtpref, wtmax, wtpref, dtpref) = (w(0)?, w(4)?, w(12)?, w(16)?, w(24)?);
        out!(
            self.p,
            " rtmax {rtmax} rtpref {rtpref} wtmax {wtmax} wtpref {wtpref} dtpref {dtpref}"
        );
        if self.v > 0 {
            let (rtmult, wtmult, max) = (w(8)?, w(20)?, g8(self.rp, dp + 28)?);
            out!(self.p, " rtmult {rtmult} wtmult {wtmult} maxfsz {max}");
            let (s, n) = (w(36)?, w(40)?);
            out!(self.p, " delta {s}.{n:06} ");
        }
        Ok(Some(dp))
    }

    fn pathconf(&mut self, dp: usize) -> Parsed {
        let Some((dp, er)) = self.status_post(dp, " POST:")? else {
            return Ok(None);
        };
        if er {
            return Ok(Some(dp));
        }
        if !have(self.rp, dp, 24) {
            return Ok(None);
        }
        let w = |i: usize| g4(self.rp, dp + i);
        let (linkmax, namemax) = (w(0)?, w(4)?);
        let flag = |i: usize, name: &'static str| -> PResult<&'static str> {
            Ok(if w(i)? != 0 { name } else { "" })
        };
        let (a, b, c, d) = (
            flag(8, "notrunc")?,
            flag(12, "chownres")?,
            flag(16, "igncase")?,
            flag(20, "keepcase")?,
        );
        out!(
            self.p,
            " linkmax {linkmax} namemax {namemax} {a} {b} {c} {d}"
        );
        Ok(Some(dp))
    }
}
