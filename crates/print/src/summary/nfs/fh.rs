//! NFS file handles as tcpdump prints them: with `-u` their words in hex,
//! otherwise the file system and file number its `Parse_fh` guesses from the
//! layouts of the servers it knows (`parsenfsfh.c`), or the handle in hex when
//! it knows none.

use super::{have, Parsed};
use crate::summary::{g4, out, Printer};
use std::fmt::Write;

/// The server layouts `Parse_fh` tells apart (`FHT_*`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    Unknown,
    Auspex,
    DecOsf,
    Irix4,
    SunOs4,
    SunOs5,
    Ultrix,
    VmsUcx,
    HpUx9,
    Bsd44,
}

/// `Parse_fh`'s decision tree on the first bytes of a handle of `words`
/// 32-bit words (at least 4 for any guess).
fn layout(h: &[u8], words: usize) -> Layout {
    use Layout::*;
    let b = |i: usize| h.get(i).copied().unwrap_or(0);
    if words < 4 {
        return Unknown;
    }
    if b(0) == 0 && b(1) == 0 {
        if b(2) == 0 && b(3) == 0 {
            Auspex
        } else if b(4) != 0 && b(5) == 0 && b(8) == 12 && b(9) == 0 {
            DecOsf
        } else if b(4) == 0 && b(5) == 8 && b(6) == 0 && b(7) == 0 {
            Irix4
        } else {
            SunOs4
        }
    } else if b(2) == 0 && b(3) == 0 {
        if b(6) == 0 && b(7) == 0 {
            Bsd44
        } else if words >= 6 && b(21) == 0 && b(23) == 0 {
            Ultrix
        } else if b(9) == 10 {
            SunOs5
        } else {
            Unknown
        }
    } else if b(8) == 12 && b(9) == 0 {
        DecOsf
    } else if b(8) == 0 && b(9) == 10 {
        if b(4) == 0 && b(5) == 0 && b(6) == 0 && b(7) == 0 {
            HpUx9
        } else {
            SunOs5
        }
    } else if is_ucx(h, words) {
        VmsUcx
    } else {
        Unknown
    }
}

/// `is_UCX`: a VMS UCX handle has printable characters, then NULs, in its
/// bytes 1 to 13.
fn is_ucx(h: &[u8], words: usize) -> bool {
    if words < 7 {
        return false;
    }
    let mut seen_null = false;
    for &c in h.iter().take(14).skip(1) {
        if (0x20..0x7f).contains(&c) {
            if seen_null {
                return false;
            }
        } else if c == 0 {
            seen_null = true;
        } else {
            return false;
        }
    }
    true
}

/// What ` fh ...` shows of a handle `h` of `words` words (all captured):
/// `Parse_fh`'s file system (`major,minor` or a name) and file number.
fn describe(h: &[u8], words: usize) -> String {
    use Layout::*;
    let b = |i: usize| u32::from(h.get(i).copied().unwrap_or(0));
    let be = |i: usize, n: usize| (i..i + n).fold(0u32, |a, j| a << 8 | b(j));
    let le = |i: usize, n: usize| (i..i + n).rev().fold(0u32, |a, j| a << 8 | b(j));
    // (major, minor, file number), or the name printed for the file system.
    let (major, minor, ino) = match layout(h, words) {
        Auspex => (b(6), b(7), be(12, 4)),
        Bsd44 => (b(1), b(0), le(12, 4)),
        DecOsf => {
            let t = le(0, 4);
            ((t >> 20) & 0xfff, t & 0xfffff, le(12, 4))
        }
        Irix4 => (b(2), b(3), be(8, 4)),
        SunOs4 => (b(2), b(3), be(12, 4)),
        SunOs5 => ((be(0, 2) >> 2) & 0x3fff, be(1, 3) & 0x3ffff, be(12, 4)),
        Ultrix => (b(1), b(0), le(4, 4)),
        HpUx9 => (b(0), be(1, 3), be(12, 4)),
        VmsUcx => {
            // The exported device's name, up to a NUL or a space.
            let n = words.min(64);
            let name: String = h[1..]
                .iter()
                .take(n)
                .take_while(|&&c| c != 0 && c != b' ')
                .map(|&c| c as char)
                .collect();
            let ino = b(26) << 24 | b(27) << 16 | le(22, 2);
            return format!(" fh {name}/{ino}");
        }
        Unknown => {
            // "Unknown", cut to the handle's length in words (tcpdump's
            // `strncpy` bound), then up to 32 bytes of the handle in hex.
            let name = &"Unknown"[..words.min(7)];
            let mut s = format!(" fh {name}/");
            for c in h.iter().take((words * 4).min(32)) {
                let _ = write!(s, "{c:02X}");
            }
            return s;
        }
    };
    // tcpdump prints its uninitialised hex buffer for a minor number of 257
    // from a known layout; nothing is the closest stable rendering.
    if minor == 257 {
        format!(" fh {major},{minor}/")
    } else {
        format!(" fh {major},{minor}/{ino}")
    }
}

impl Printer<'_> {
    /// `parsefh`: the handle at `dp` (v3's with its length, v2's of 32
    /// bytes), printed; the offset past it, `None` when it is not captured.
    pub(super) fn nfs_fh(&mut self, rp: &[u8], dp: usize, v3: bool) -> Parsed {
        let (words, dp) = if v3 {
            (g4(rp, dp)? as usize / 4, dp.saturating_add(4))
        } else {
            (8, dp)
        };
        if !have(rp, dp, words as u64 * 4) {
            return Ok(None);
        }
        let h = &rp[dp..dp + words * 4];
        if self.opts.nfs_handles {
            self.out.push_str(" fh[");
            for (i, w) in h.chunks_exact(4).enumerate() {
                let w = u32::from_be_bytes([w[0], w[1], w[2], w[3]]);
                let sep = if i == 0 { "" } else { ":" };
                out!(self, "{sep}{w:x}");
            }
            self.out.push(']');
        } else {
            let d = describe(h, words);
            self.out.push_str(&d);
        }
        Ok(Some(dp + words * 4))
    }
}
