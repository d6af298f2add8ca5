//! The attributes NFS v3 results carry (`fattr3`, `pre_op_attr`,
//! `post_op_attr`, `wcc_data`), printed as `-v` and `-vv` ask.

use super::super::{file_type, have, Parsed};
use super::Rep;
use crate::summary::{g4, g8, out, PResult};

impl Rep<'_, '_, '_> {
    /// `parsefattr`: a v2 or v3 `fattr`, its fields as `verbose` asks.
    pub(super) fn fattr(&mut self, dp: usize, verbose: u8, v3: bool) -> Parsed {
        let rp = self.rp;
        let w = |i: usize| g4(rp, dp + i);
        if !have(rp, dp, 20) {
            return Ok(None);
        }
        if verbose > 0 {
            let (ty, mode, uid, gid) = (w(0)?, w(4)?, w(12)? as i32, w(16)? as i32);
            match file_type(ty) {
                Some(t) => out!(self.p, " {t}"),
                None => out!(self.p, " unk-ft {ty} "),
            }
            out!(self.p, " {mode:o} ids {uid}/{gid}");
            if v3 {
                let sz = g8(rp, dp + 20)?;
                out!(self.p, " sz {sz}");
            } else {
                let sz = w(20)?;
                out!(self.p, " sz {sz}");
            }
        }
        if verbose > 1 {
            if !have(rp, dp, if v3 { 84 } else { 68 }) {
                return Ok(None);
            }
            let t = |i: usize| -> PResult<String> { Ok(format!("{}.{:06}", w(i)?, w(i + 4)?)) };
            if v3 {
                let (nlink, r1, r2) = (w(8)?, w(36)?, w(40)?);
                let (fsid, fileid) = (g8(rp, dp + 44)?, g8(rp, dp + 52)?);
                out!(
                    self.p,
                    " nlink {nlink} rdev {r1}/{r2} fsid {fsid:x} fileid {fileid:x} a/m/ctime {} {} {}",
                    t(60)?,
                    t(68)?,
                    t(76)?
                );
            } else {
                let (nlink, rdev, fsid, fileid) = (w(8)?, w(28)?, w(36)?, w(40)?);
                out!(
                    self.p,
                    " nlink {nlink} rdev 0x{rdev:x} fsid 0x{fsid:x} nodeid 0x{fileid:x} a/m/ctime {} {} {}",
                    t(44)?,
                    t(52)?,
                    t(60)?
                );
            }
        }
        Ok(Some(dp + if v3 { 84 } else { 68 }))
    }

    /// `parse_pre_op_attr`: printed with `-vv`.
    pub(super) fn pre_op(&mut self, dp: usize, verbose: u8) -> Parsed {
        if self.w(dp)? == 0 {
            return Ok(Some(dp + 4));
        }
        let dp = dp + 4;
        if !have(self.rp, dp, 24) {
            return Ok(None);
        }
        if verbose > 1 {
            let sz = g8(self.rp, dp)?;
            out!(self.p, " sz {sz}");
            let w = |i: usize| g4(self.rp, dp + i);
            let (ms, mn, cs, cn) = (w(8)?, w(12)?, w(16)?, w(20)?);
            out!(self.p, " mtime {ms}.{mn:06} ctime {cs}.{cn:06}");
        }
        Ok(Some(dp + 24))
    }

    /// `parse_post_op_attr`: printed with `-v`.
    pub(super) fn post_op(&mut self, dp: usize, verbose: u8) -> Parsed {
        if self.w(dp)? == 0 {
            return Ok(Some(dp + 4));
        }
        if verbose > 0 {
            self.fattr(dp + 4, verbose, true)
        } else {
            Ok(Some(dp + 4 + 84))
        }
    }

    /// `parse_wcc_data`.
    pub(super) fn wcc_data(&mut self, dp: usize, verbose: u8) -> Parsed {
        if verbose > 1 {
            self.p.out.push_str(" PRE:");
        }
        let Some(dp) = self.pre_op(dp, verbose)? else {
            return Ok(None);
        };
        if verbose > 0 {
            self.p.out.push_str(" POST:");
        }
        self.post_op(dp, verbose)
    }

    /// `parsewccres`.
    pub(super) fn wccres(&mut self, dp: usize, verbose: u8) -> Parsed {
        let (dp, _) = self.status(dp)?;
        self.wcc_data(dp, verbose)
    }

    /// The status, then `label` (with `-v`) and the `post_op_attr` that
    /// follows it in many v3 results: the offset past them and whether the
    /// status is an error.
    pub(super) fn status_post(&mut self, dp: usize, label: &str) -> PResult<Option<(usize, bool)>> {
        let (dp, er) = self.status(dp)?;
        if self.v > 0 {
            self.p.out.push_str(label);
        }
        Ok(self.post_op(dp, self.v)?.map(|dp| (dp, er)))
    }
}
