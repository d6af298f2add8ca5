//! The argument encodings of AFS calls and replies (tcpdump's `FIDOUT`,
//! `STROUT`, `VECOUT` ... macros), as a small list of fields each call's
//! arguments are read by.

use super::{tables, Stop, R};
use crate::summary::{g4, need, out, print_char, Printer};

/// One argument.
#[derive(Clone, Copy, Debug)]
pub(super) enum F {
    /// Text printed as is.
    Lit(&'static str),
    /// ` fid volume/vnode/unique`.
    Fid,
    /// A counted string of at most N bytes, padded to 4: ` "name"`.
    Str(u32),
    /// ` %d`.
    Int,
    /// ` %u`.
    UInt,
    /// ` %u` of 64 bits.
    U64,
    /// ` YYYY/MM/DD HH:MM:SS` of a signed Unix time.
    Date,
    /// The fields of an `AFSStoreStatus` its mask selects.
    Store,
    /// A Ubik version: ` epoch.counter`.
    UbikV,
    /// ` ` and an AFS UUID in hex.
    Uuid,
    /// N characters each stored in a 32-bit word: ` "name"`.
    Chars(usize),
    /// ` server a:b:c`.
    Dest,
    /// A volume type word: ` type read-write` when known.
    VolType,
    /// A count and that many fids, comma-separated, or ` <none!>`.
    FidList,
    /// A count and that many ` %d`, or ` <none!>`.
    IntList,
    /// A count and that many [`F::Chars`], or ` <none!>`.
    CharsList(usize),
    /// A count and that many [`F::Dest`], comma-separated, or ` <none!>`.
    DestList,
    /// A count and that many callbacks: `; ver N expires DATE`.
    CbList,
    /// Vol's volume list: ` name "n" volid N type` per entry.
    VolList,
    /// A counted opaque block, skipped.
    Opaque,
    /// A word read and not printed.
    Ignore,
    /// Ubik's beacon flag: ` syncsite yes`.
    SyncSite,
    /// An ACL string (`acl_print`).
    Acl,
}

/// tcpdump's `ND_TCHECK_LEN` in print-rx.c: a service-level truncation.
pub(super) fn check_len(p: &[u8], at: usize, n: usize) -> R {
    need(p, at, n).map_err(|_| Stop::Svc)
}

/// `DATEOUT`'s text (tcpdump's `localtime`, which is UTC under `TZ=UTC`).
pub(super) fn date(secs: i32) -> String {
    let (y, m, d, hh, mm, ss) = crate::summary::ntp::civil(i64::from(secs));
    format!("{y:04}/{m:02}/{d:02} {hh:02}:{mm:02}:{ss:02}")
}

impl Printer<'_> {
    /// Prints `fields` from `*at` of the Rx packet `p`, moving `*at` on.
    pub(super) fn rx_fields(&mut self, p: &[u8], at: &mut usize, fields: &[F]) -> R {
        for &f in fields {
            self.rx_field(p, at, f)?;
        }
        Ok(())
    }

    fn word(&mut self, p: &[u8], at: &mut usize) -> R<u32> {
        let v = g4(p, *at)?;
        *at += 4;
        Ok(v)
    }

    fn rx_field(&mut self, p: &[u8], at: &mut usize, f: F) -> R {
        match f {
            F::Lit(s) => self.out.push_str(s),
            F::Fid => {
                check_len(p, *at, 12)?;
                let (a, b, c) = (g4(p, *at)?, g4(p, *at + 4)?, g4(p, *at + 8)?);
                *at += 12;
                out!(self, " fid {a}/{b}/{c}");
            }
            F::Str(max) => {
                let n = self.word(p, at)?;
                if n > max {
                    return Err(Stop::Svc);
                }
                out!(self, " \"");
                for i in 0..n as usize {
                    match p.get(*at + i) {
                        Some(&c) => print_char(&mut self.out, c),
                        None => return Err(Stop::Svc),
                    }
                }
                self.out.push('"');
                *at += (n as usize).div_ceil(4) * 4;
            }
            F::Int => {
                let v = self.word(p, at)? as i32;
                out!(self, " {v}");
            }
            F::UInt => {
                let v = self.word(p, at)?;
                out!(self, " {v}");
            }
            F::U64 => {
                let hi = u64::from(self.word(p, at)?);
                let lo = u64::from(self.word(p, at)?);
                out!(self, " {}", hi << 32 | lo);
            }
            F::Date => {
                let v = self.word(p, at)? as i32;
                out!(self, " {}", date(v));
            }
            F::Store => self.rx_store(p, at)?,
            F::UbikV => {
                check_len(p, *at, 8)?;
                let (e, c) = (g4(p, *at)?, g4(p, *at + 4)?);
                *at += 8;
                out!(self, " {e}.{c}");
            }
            F::Uuid => {
                check_len(p, *at, 44)?;
                let a = self.word(p, at)?;
                let b = self.word(p, at)?;
                let c = self.word(p, at)?;
                out!(self, " {a:08x}{b:04x}{c:04x}");
                for _ in 0..8 {
                    let v = self.word(p, at)?;
                    out!(self, "{:02x}", v as u8);
                }
            }
            F::Chars(max) => {
                check_len(p, *at, max * 4)?;
                // The low byte of each word; fn_print_str stops at a NUL.
                let text: Vec<u8> = (0..max).map(|k| p[*at + 4 * k + 3]).collect();
                *at += max * 4;
                out!(self, " \"");
                for &c in text.iter().take_while(|&&c| c != 0) {
                    print_char(&mut self.out, c);
                }
                self.out.push('"');
            }
            F::Dest => {
                check_len(p, *at, 12)?;
                let (a, b, c) = (g4(p, *at)?, g4(p, *at + 4)?, g4(p, *at + 8)?);
                *at += 12;
                out!(self, " server {a}:{b}:{c}");
            }
            F::VolType => {
                let v = self.word(p, at)?;
                if let Some(t) = tables::VOLTYPE.get(v as usize) {
                    out!(self, " type {t}");
                }
            }
            F::FidList | F::DestList => {
                let one = if matches!(f, F::FidList) {
                    F::Fid
                } else {
                    F::Dest
                };
                let n = self.word(p, at)?;
                for i in 0..n {
                    self.rx_field(p, at, one)?;
                    if i != n - 1 {
                        self.out.push(',');
                    }
                }
                if n == 0 {
                    out!(self, " <none!>");
                }
            }
            F::IntList | F::CharsList(_) => {
                let one = match f {
                    F::CharsList(max) => F::Chars(max),
                    _ => F::Int,
                };
                let n = self.word(p, at)?;
                for _ in 0..n {
                    self.rx_field(p, at, one)?;
                }
                if n == 0 {
                    out!(self, " <none!>");
                }
            }
            F::CbList => {
                let n = self.word(p, at)?;
                if n != 0 {
                    self.out.push(';');
                }
                for _ in 0..n {
                    self.rx_fields(
                        p,
                        at,
                        &[F::Lit(" ver"), F::Int, F::Lit(" expires"), F::Date],
                    )?;
                    self.word(p, at)?;
                }
            }
            F::VolList => {
                let n = self.word(p, at)?;
                for i in 0..n {
                    let entry = [F::Lit(" name"), F::Chars(32), F::Lit(" volid"), F::UInt];
                    self.rx_fields(p, at, &entry)?;
                    out!(self, " type");
                    *at += 4 * 21;
                    if i != n - 1 {
                        self.out.push(',');
                    }
                }
                if n == 0 {
                    out!(self, " <none!>");
                }
            }
            F::Opaque => {
                let n = self.word(p, at)? as usize;
                check_len(p, *at, n)?;
                *at += n;
            }
            F::Ignore => {
                self.word(p, at)?;
            }
            F::SyncSite => {
                let v = self.word(p, at)?;
                out!(self, " syncsite {}", if v != 0 { "yes" } else { "no" });
            }
            F::Acl => {
                let n = self.word(p, at)? as usize;
                check_len(p, *at, n)?;
                let s = &p[*at..*at + n.min(1024)];
                // strncpy: the string ends at the first NUL.
                let s = &s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())];
                self.acl(s);
            }
        }
        Ok(())
    }

    /// `STOREATTROUT`.
    fn rx_store(&mut self, p: &[u8], at: &mut usize) -> R {
        check_len(p, *at, 24)?;
        let mask = self.word(p, at)?;
        if mask != 0 {
            out!(self, " StoreStatus");
        }
        if mask & 1 != 0 {
            out!(self, " date");
            self.rx_field(p, at, F::Date)?;
        } else {
            *at += 4;
        }
        let owner = self.word(p, at)?;
        let group = self.word(p, at)?;
        let mode = self.word(p, at)?;
        let segsize = self.word(p, at)?;
        if mask & 2 != 0 {
            out!(self, " owner {owner}");
        }
        if mask & 4 != 0 {
            out!(self, " group {group}");
        }
        if mask & 8 != 0 {
            out!(self, " mode {:o}", mode & 0o7777);
        }
        if mask & 16 != 0 {
            out!(self, " segsize {segsize}");
        }
        if mask & 1024 != 0 {
            out!(self, " fsync");
        }
        Ok(())
    }

    /// `acl_print`: `<npos> <nneg>` then a `<user> <bits>` line per entry,
    /// printed ` +{user rlidwka}` and ` -{...}`.
    fn acl(&mut self, s: &[u8]) {
        let mut sc = Scan { s, at: 0 };
        let (Some(pos), Some(neg)) = (sc.int(), sc.int()) else {
            return;
        };
        sc.ws();
        for (count, sign) in [(pos, '+'), (neg, '-')] {
            for _ in 0..count.max(0) {
                let Some(user) = sc.word() else { return };
                let Some(bits) = sc.int() else { return };
                sc.ws();
                out!(self, " {sign}{{");
                for &c in user {
                    print_char(&mut self.out, c);
                }
                self.out.push(' ');
                for (bit, c) in [
                    (1, 'r'),
                    (8, 'l'),
                    (4, 'i'),
                    (16, 'd'),
                    (2, 'w'),
                    (32, 'k'),
                    (64, 'a'),
                ] {
                    if bits & bit != 0 {
                        self.out.push(c);
                    }
                }
                self.out.push('}');
            }
        }
    }
}

/// Just enough of `sscanf` for `acl_print`'s `%d`, `%1024s` and whitespace.
struct Scan<'a> {
    s: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    fn ws(&mut self) {
        while self.s.get(self.at).is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn int(&mut self) -> Option<i32> {
        self.ws();
        let start = self.at;
        if matches!(self.s.get(self.at), Some(b'-' | b'+')) {
            self.at += 1;
        }
        let digits = self.at;
        while self.s.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        if self.at == digits {
            return None;
        }
        let text = std::str::from_utf8(&self.s[start..self.at]).ok()?;
        // sscanf's overflow is undefined; saturate.
        Some(text.parse::<i64>().map_or(i32::MAX, |v| {
            v.clamp(i32::MIN as i64, i32::MAX as i64) as i32
        }))
    }

    fn word(&mut self) -> Option<&'a [u8]> {
        self.ws();
        let start = self.at;
        while self.at - start < 1024
            && self
                .s
                .get(self.at)
                .is_some_and(|c| !c.is_ascii_whitespace())
        {
            self.at += 1;
        }
        (self.at > start).then(|| &self.s[start..self.at])
    }
}
