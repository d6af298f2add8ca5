//! NFS calls (`nfsreq_noaddr_print`): the procedure, then its arguments as
//! tcpdump prints them, past the credentials and verifier.

use super::{adv, file_type, have, proc_name, procs, round4, v3_proc, write_mode, Parsed};
use crate::summary::{g4, g8, out, IpCtx, PResult, Printer};
use std::fmt::Write;

impl Printer<'_> {
    /// `nfsreq_noaddr_print`; `Ok(false)` where it ends at its `trunc` label.
    pub(super) fn nfs_request(&mut self, rp: &[u8], length: u32, ctx: &IpCtx) -> PResult<bool> {
        use procs::*;
        out!(self, "{length}");
        let (Ok(vers), Ok(proc_)) = (g4(rp, 16), g4(rp, 20)) else {
            return Ok(false);
        };
        self.tcp.nfs.enter(&ctx.addrs, g4(rp, 0)?, proc_, vers);
        let (proc_, v3) = v3_proc(proc_, vers);
        proc_name(&mut self.out, proc_);
        let known = matches!(proc_, GETATTR..=COMMIT);
        if !known {
            return Ok(true);
        }
        let Some(dp) = parse_call(rp, length)? else {
            return Ok(false);
        };
        let r = match proc_ {
            GETATTR | SETATTR | READLINK | FSSTAT | FSINFO | PATHCONF => self.nfs_fh(rp, dp, v3)?,
            LOOKUP | CREATE | MKDIR | REMOVE | RMDIR => self.nfs_fhn(rp, dp, v3)?,
            ACCESS => self.nfs_access(rp, dp, v3)?,
            READ | WRITE | READDIR | READDIRPLUS | COMMIT => self.nfs_io_args(rp, dp, proc_, v3)?,
            SYMLINK => self.nfs_symlink(rp, dp, v3)?,
            MKNOD => self.nfs_mknod(rp, dp, v3)?,
            _ => self.nfs_rename_link(rp, dp, proc_ == RENAME, v3)?,
        };
        Ok(r.is_some())
    }

    /// `parsefhn`: a file handle, then a name.
    fn nfs_fhn(&mut self, rp: &[u8], dp: usize, v3: bool) -> Parsed {
        let Some(dp) = self.nfs_fh(rp, dp, v3)? else {
            return Ok(None);
        };
        self.out.push(' ');
        self.nfs_name(rp, dp)
    }

    /// `parsefn`: a name in quotes.
    pub(super) fn nfs_name(&mut self, rp: &[u8], dp: usize) -> Parsed {
        let len = g4(rp, dp)?;
        let dp = dp + 4;
        if u32::MAX - len < 3 {
            self.out
                .push_str("[cannot pad to 32-bit boundaries] (invalid)");
            return Ok(None);
        }
        let rounded = round4(len);
        if !have(rp, dp, rounded.into()) {
            return Ok(None);
        }
        self.out.push('"');
        for &c in &rp[dp..dp + len as usize] {
            crate::summary::print_char(&mut self.out, c);
        }
        self.out.push('"');
        Ok(Some(dp + rounded as usize))
    }

    fn nfs_access(&mut self, rp: &[u8], dp: usize, v3: bool) -> Parsed {
        let Some(dp) = self.nfs_fh(rp, dp, v3)? else {
            return Ok(None);
        };
        let flags = g4(rp, dp)?;
        const FULL: u32 = 0x3f;
        if flags & !FULL != 0 {
            out!(self, " {flags:04x}");
        } else if flags == FULL {
            self.out.push_str(" NFS_ACCESS_FULL");
        } else {
            const NAMES: [&str; 6] = ["READ", "LOOKUP", "MODIFY", "EXTEND", "DELETE", "EXECUTE"];
            let mut sep = ' ';
            for (i, n) in NAMES.iter().enumerate() {
                if flags & (1 << i) != 0 {
                    out!(self, "{sep}NFS_ACCESS_{n}");
                    sep = '|';
                }
            }
        }
        Ok(Some(dp))
    }

    /// The arguments of READ, WRITE, READDIR, READDIRPLUS and COMMIT: a file
    /// handle, offsets and counts.
    fn nfs_io_args(&mut self, rp: &[u8], dp: usize, proc_: u32, v3: bool) -> Parsed {
        use procs::*;
        let Some(dp) = self.nfs_fh(rp, dp, v3)? else {
            return Ok(None);
        };
        let w = |i: usize| g4(rp, dp + 4 * i);
        let verbose = self.opts.verbose > 0;
        match (proc_, v3) {
            (READ | COMMIT, true) => {
                let (n, at) = (w(2)?, g8(rp, dp)?);
                out!(self, " {n} bytes @ {at}");
            }
            (READ | READDIR, false) => {
                let (n, at) = (w(1)?, w(0)?);
                out!(self, " {n} bytes @ {at}");
            }
            (WRITE, true) => {
                let (n, c, at) = (w(4)?, w(2)?, g8(rp, dp)?);
                out!(self, " {n} ({c}) bytes @ {at}");
                if verbose {
                    let mode = w(3)?;
                    out!(self, " <{}>", write_mode(mode));
                }
            }
            (WRITE, false) => {
                let (a, b, c, d) = (w(3)?, w(2)?, w(1)?, w(0)?);
                out!(self, " {a} ({b}) bytes @ {c} ({d})");
            }
            _ => {
                // READDIR v3, READDIRPLUS: the cookie as signed.
                let (n, at) = (w(4)?, g8(rp, dp)? as i64);
                out!(self, " {n} bytes @ {at}");
                if verbose {
                    if proc_ == READDIRPLUS {
                        let max = w(5)?;
                        out!(self, " max {max}");
                    }
                    let (x, y) = (w(2)?, w(3)?);
                    out!(self, " verf {x:08x}{y:08x}");
                }
            }
        }
        Ok(Some(dp))
    }

    fn nfs_symlink(&mut self, rp: &[u8], dp: usize, v3: bool) -> Parsed {
        let Some(mut dp) = self.nfs_fhn(rp, dp, v3)? else {
            return Ok(None);
        };
        self.out.push_str(" ->");
        let mut sa = Sattr3::default();
        if v3 {
            dp = sa.parse(rp, dp)?;
        }
        let Some(dp) = self.nfs_name(rp, dp)? else {
            return Ok(None);
        };
        if v3 && self.opts.verbose > 0 {
            sa.print(&mut self.out, self.opts.verbose);
        }
        Ok(Some(dp))
    }

    fn nfs_mknod(&mut self, rp: &[u8], dp: usize, v3: bool) -> Parsed {
        let Some(dp) = self.nfs_fhn(rp, dp, v3)? else {
            return Ok(None);
        };
        let ty = g4(rp, dp)?;
        let mut sa = Sattr3::default();
        let dp = sa.parse(rp, dp + 4)?;
        match file_type(ty) {
            Some(t) => out!(self, " {t}"),
            None => out!(self, " unk-ft {ty}"),
        }
        if self.opts.verbose > 0 {
            if ty == 3 || ty == 4 {
                let (x, y) = (g4(rp, dp)?, g4(rp, dp + 4)?);
                out!(self, " {x}/{y}");
            }
            sa.print(&mut self.out, self.opts.verbose);
        }
        Ok(Some(dp))
    }

    /// RENAME (a handle and name, to another) and LINK (a handle, to a
    /// handle and name).
    fn nfs_rename_link(&mut self, rp: &[u8], dp: usize, rename: bool, v3: bool) -> Parsed {
        let first = if rename {
            self.nfs_fhn(rp, dp, v3)?
        } else {
            self.nfs_fh(rp, dp, v3)?
        };
        let Some(dp) = first else {
            return Ok(None);
        };
        self.out.push_str(" ->");
        self.nfs_fhn(rp, dp, v3)
    }
}

/// `parsereq`: the offset of a call's arguments, past its credentials and
/// verifier, or `None` when they are not all in `length` or captured.
fn parse_call(rp: &[u8], length: u32) -> Parsed {
    let mut dp = 24usize;
    let mut length = u64::from(length);
    if length < 8 {
        return Ok(None);
    }
    let len = g4(rp, dp + 4)?;
    let rounded = round4(len);
    if !have(rp, dp + 8, rounded.into()) || 8 + u64::from(rounded) > length {
        return Ok(None);
    }
    dp = adv(dp, (u64::from(len) + 11) / 4 * 4);
    length -= 8 + u64::from(rounded);
    if length < 8 {
        return Ok(None);
    }
    let len = g4(rp, dp.saturating_add(4))?;
    let rounded = round4(len);
    if !have(rp, dp.saturating_add(8), rounded.into()) || 8 + u64::from(rounded) >= length {
        return Ok(None);
    }
    Ok(Some(adv(dp, (u64::from(len) + 11) / 4 * 4)))
}

/// The fields of a v3 `sattr3` that are set (`struct nfsv3_sattr`).
#[derive(Default)]
struct Sattr3 {
    mode: Option<u32>,
    uid: Option<u32>,
    gid: Option<u32>,
    atime: Option<(u32, u32)>,
    mtime: Option<(u32, u32)>,
}

impl Sattr3 {
    /// `parse_sattr3`: the offset past it.
    fn parse(&mut self, rp: &[u8], mut dp: usize) -> PResult<usize> {
        // A value after a nonzero "set" word.
        let opt = |dp: &mut usize| -> PResult<Option<u32>> {
            let set = g4(rp, *dp)?;
            *dp += 4;
            if set == 0 {
                return Ok(None);
            }
            let v = g4(rp, *dp)?;
            *dp += 4;
            Ok(Some(v))
        };
        self.mode = opt(&mut dp)?;
        self.uid = opt(&mut dp)?;
        self.gid = opt(&mut dp)?;
        opt(&mut dp)?; // the size, which tcpdump does not print
                       // A time after its "how" word, when that is SET_TO_CLIENT_TIME.
        let time = |dp: &mut usize| -> PResult<Option<(u32, u32)>> {
            let how = g4(rp, *dp)?;
            *dp += 4;
            if how != 2 {
                return Ok(None);
            }
            let t = (g4(rp, *dp)?, g4(rp, *dp + 4)?);
            *dp += 8;
            Ok(Some(t))
        };
        self.atime = time(&mut dp)?;
        self.mtime = time(&mut dp)?;
        Ok(dp)
    }

    /// `print_sattr3`.
    fn print(&self, out: &mut String, verbose: u8) {
        if let Some(m) = self.mode {
            let _ = write!(out, " mode {m:o}");
        }
        if let Some(u) = self.uid {
            let _ = write!(out, " uid {u}");
        }
        if let Some(g) = self.gid {
            let _ = write!(out, " gid {g}");
        }
        if verbose > 1 {
            if let Some((s, n)) = self.atime {
                let _ = write!(out, " atime {s}.{n:06}");
            }
            if let Some((s, n)) = self.mtime {
                let _ = write!(out, " mtime {s}.{n:06}");
            }
        }
    }
}
