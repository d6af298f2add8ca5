//! PIM version 1 inside IGMP (tcpdump's `pimv1_print`): the message type,
//! and each type's fields; with `-v` a query's hold time, an RP
//! reachability's group and RP, a join/prune's list (`-vv` for all of it).
//! Cisco's auto-RP over UDP is `autorp.rs`.

use super::{g1, g2, g4, gv4, host4_name, need, out, relts, PResult, Printer};

impl Printer<'_> {
    /// `pimv1_print`: `bp` from the IGMP header on, `len` its length.
    pub(super) fn pimv1(&mut self, bp: &[u8], len: u32) -> PResult {
        self.proto = "pimv1";
        let t = g1(bp, 1)?;
        let name = match t {
            0 => "Query",
            1 => "Register",
            2 => "Register-Stop",
            3 => "Join/Prune",
            4 => "RP-reachable",
            5 => "Assert",
            6 => "Graft",
            7 => "Graft-ACK",
            _ => "",
        };
        if name.is_empty() {
            out!(self, " [type {t}]");
        } else {
            out!(self, " {name}");
        }
        let verbose = self.opts.verbose > 0;
        let names = self.opts.names;
        let a = |at: usize| gv4(bp, at).map(|x| host4_name(names, x));
        match t {
            0 => {
                if let Ok(m) = g1(bp, 8) {
                    match m >> 4 {
                        0 => self.out.push_str(" Dense-mode"),
                        1 => self.out.push_str(" Sparse-mode"),
                        2 => self.out.push_str(" Sparse-Dense-mode"),
                        m => out!(self, " mode-{m}"),
                    }
                }
                if verbose {
                    out!(self, " (Hold-time {})", relts(u32::from(g2(bp, 10)?)));
                }
            }
            1 => {
                need(bp, 8, 20)?;
                out!(self, " for {} > {}", a(20)?, a(24)?);
            }
            2 => out!(self, " for {} > {}", a(8)?, a(12)?),
            4 if verbose => {
                out!(self, " group {}", a(8)?);
                if g4(bp, 12)? != 0xffff_ffff {
                    out!(self, "/{}", a(12)?);
                }
                out!(
                    self,
                    " RP {} hold {}",
                    a(16)?,
                    relts(u32::from(g2(bp, 22)?))
                );
            }
            5 => {
                out!(self, " for {} > {}", a(16)?, a(8)?);
                if g4(bp, 12)? != 0xffff_ffff {
                    out!(self, "/{}", a(12)?);
                }
                let tree = if g1(bp, 20)? & 0x80 != 0 {
                    "RP-tree"
                } else {
                    "SPT"
                };
                out!(
                    self,
                    " {tree} pref {} metric {}",
                    g4(bp, 20)? & 0x7fff_ffff,
                    g4(bp, 24)?
                );
            }
            3 | 6 | 7 if verbose => {
                if len < 8 {
                    self.trunc();
                    return Ok(());
                }
                if self
                    .pimv1_join_prune(&bp[bp.len().min(8)..], len - 8)?
                    .is_none()
                {
                    self.trunc();
                }
            }
            _ => {}
        }
        let v = g1(bp, 4)? >> 4;
        if v != 1 {
            out!(self, " [v{v}]");
        }
        Ok(())
    }

    /// `pimv1_join_prune_print`; `None` where tcpdump's ends in its
    /// truncation marker.
    fn pimv1_join_prune(&mut self, bp: &[u8], len: u32) -> PResult<Option<()>> {
        let names = self.opts.names;
        let a = |at: usize| gv4(bp, at).map(|x| host4_name(names, x));
        if need(bp, 0, 30).is_ok() && g1(bp, 11)? == 1 {
            let njoin = g2(bp, 20)?;
            if u32::from(njoin) + u32::from(g2(bp, 22)?) == 1 {
                out!(self, " RPF {} ", a(0)?);
                let hold = g2(bp, 6)?;
                if hold != 180 {
                    out!(self, "Hold {}", relts(u32::from(hold)));
                }
                let jp = if njoin != 0 { "Join" } else { "Prune" };
                out!(self, "{jp} ({}/{}, {}", a(26)?, g1(bp, 25)? & 0x3f, a(12)?);
                if g4(bp, 16)? != 0xffff_ffff {
                    out!(self, "/{}", a(16)?);
                }
                let (f24, f25) = (g1(bp, 24)?, g1(bp, 25)?);
                out!(
                    self,
                    ") {}{} {}",
                    if f24 & 1 != 0 { "Sparse" } else { "Dense" },
                    if f25 & 0x80 != 0 { " WC" } else { "" },
                    if f25 & 0x40 != 0 { "RP" } else { "SPT" }
                );
                return Ok(Some(()));
            }
        }
        let vv = self.opts.verbose > 1;
        let mut len = len as usize;
        if len < 4 {
            return Ok(None);
        }
        if vv {
            self.out.push('\n');
        }
        out!(self, " Upstream Nbr: {}", a(0)?);
        len -= 4;
        if len < 4 {
            return Ok(None);
        }
        if vv {
            self.out.push('\n');
        }
        out!(self, " Hold time: {}", relts(u32::from(g2(bp, 6)?)));
        if !vv {
            return Ok(Some(()));
        }
        len -= 4;
        if len < 4 {
            return Ok(None);
        }
        let mut ngroups = g1(bp, 11)?;
        let mut at = 12;
        len -= 4;
        while ngroups != 0 {
            if len < 4 {
                return Ok(None);
            }
            out!(self, "\n\tGroup: {}", a(at)?);
            at += 4;
            len -= 4;
            if len < 4 {
                return Ok(None);
            }
            if g4(bp, at)? != 0xffff_ffff {
                out!(self, "/{}", a(at)?);
            }
            at += 4;
            len -= 4;
            if len < 4 {
                return Ok(None);
            }
            let (nj, np) = (u32::from(g2(bp, at)?), u32::from(g2(bp, at + 2)?));
            out!(self, " joined: {nj} pruned: {np}");
            at += 4;
            len -= 4;
            for k in 0..nj + np {
                let ty = if k < nj { "Join " } else { "Prune" };
                if len < 6 {
                    return Ok(None);
                }
                let (f0, f1) = (g1(bp, at)?, g1(bp, at + 1)?);
                out!(
                    self,
                    "\n\t{ty} {}{}{}{}/{}",
                    if f0 & 1 != 0 { "Sparse " } else { "Dense " },
                    if f1 & 0x80 != 0 { "WC " } else { "" },
                    if f1 & 0x40 != 0 { "RP " } else { "SPT " },
                    a(at + 2)?,
                    f1 & 0x3f
                );
                at += 6;
                len -= 6;
            }
            ngroups -= 1;
        }
        Ok(Some(()))
    }
}
