//! The BGP UPDATE message as tcpdump 4.99.3's `bgp_update_print` prints it:
//! withdrawn routes, the path attributes' lines (their values are
//! `attr.rs`'s) and the updated routes. A function returning `Ok(false)` is
//! tcpdump's `goto trunc` (the caller prints ` [|bgp]`); `Err` is its
//! `longjmp` out of a `GET_` macro.

use super::super::{g1, g2, g4, need, out, PResult, Printer};
use super::names::ATTRIBUTES;
use super::nlri::{check_add_path, Buf};
use super::HEADER;

impl Printer<'_> {
    /// `bgp_update_print`: the message of `length` bytes at the start of `m`.
    pub(super) fn bgp_update(&mut self, m: &[u8], length: usize) -> PResult {
        if !self.update_body(m, length)? {
            self.bgp_trunc();
        }
        Ok(())
    }

    fn update_body(&mut self, m: &[u8], length: usize) -> PResult<bool> {
        if need(m, 0, HEADER).is_err() || length < HEADER {
            return Ok(false);
        }
        let mut p = HEADER;
        let mut length = length - HEADER;
        if need(m, p, 2).is_err() || length < 2 {
            return Ok(false);
        }
        let mut withdrawn = usize::from(g2(m, p)?);
        p += 2;
        length -= 2;
        if withdrawn > 1 {
            if need(m, p, withdrawn).is_err() || length < withdrawn {
                return Ok(false);
            }
            out!(self, "\n\t  Withdrawn routes:");
            let add_path = check_add_path(m, p, withdrawn as u32, 32);
            let mut path_id = 0;
            while withdrawn != 0 {
                if add_path {
                    if withdrawn < 4 {
                        p += withdrawn;
                        length -= withdrawn;
                        break;
                    }
                    path_id = g4(m, p)?;
                    p += 4;
                    length -= 4;
                    withdrawn -= 4;
                }
                match self.route4(m, p, withdrawn, add_path.then_some(path_id))? {
                    Route::Read(n) => {
                        p += n;
                        length -= n;
                        withdrawn -= n;
                    }
                    Route::Illegal => break,
                    Route::Trunc => return Ok(false),
                }
            }
        } else {
            if need(m, p, withdrawn).is_err() || length < withdrawn {
                return Ok(false);
            }
            p += withdrawn;
            length -= withdrawn;
        }
        if need(m, p, 2).is_err() || length < 2 {
            return Ok(false);
        }
        let mut len = usize::from(g2(m, p)?);
        p += 2;
        length -= 2;
        if withdrawn == 0 && len == 0 && length == 0 {
            out!(self, "\n\t  End-of-Rib Marker (empty NLRI)");
            return Ok(true);
        }
        if len != 0 && length < len {
            return Ok(false);
        }
        while len != 0 {
            if need(m, p, 2).is_err() || length < 2 {
                return Ok(false);
            }
            if len < 2 {
                out!(self, "\n\t  [path attrs too short]");
                p += len;
                length -= len;
                break;
            }
            let (flags, ty) = (g1(m, p)?, g1(m, p + 1)?);
            p += 2;
            len -= 2;
            length -= 2;
            let lenlen = len_len(flags);
            if need(m, p, lenlen).is_err() || length < lenlen {
                return Ok(false);
            }
            if len < lenlen {
                out!(self, "\n\t  [path attrs too short]");
                p += len;
                length -= len;
                break;
            }
            let alen = attr_len(m, p, flags)?;
            p += lenlen;
            len -= lenlen;
            length -= lenlen;
            self.attr_line("\n\t  ", ty, alen, flags);
            if flags != 0 {
                out!(self, ": ");
            }
            if len < alen {
                out!(self, " [path attrs too short]");
                p += len;
                length -= len;
                break;
            }
            if length < alen {
                return Ok(false);
            }
            if !self.bgp_attr(m, ty, p, alen, 0)? {
                return Ok(false);
            }
            p += alen;
            len -= alen;
            length -= alen;
        }
        if length != 0 {
            let add_path = check_add_path(m, p, length as u32, 32);
            out!(self, "\n\t  Updated routes:");
            let mut path_id = 0;
            while length != 0 {
                if add_path {
                    if need(m, p, 4).is_err() || length < 4 {
                        return Ok(false);
                    }
                    path_id = g4(m, p)?;
                    p += 4;
                    length -= 4;
                }
                match self.route4(m, p, length, add_path.then_some(path_id))? {
                    Route::Read(n) => {
                        p += n;
                        length -= n;
                    }
                    Route::Illegal => break,
                    Route::Trunc => return Ok(false),
                }
            }
        }
        Ok(true)
    }

    /// A withdrawn or updated IPv4 route at `p`, `left` bytes of them left,
    /// with its ADD-PATH path id if it has one.
    fn route4(&mut self, m: &[u8], p: usize, left: usize, path_id: Option<u32>) -> PResult<Route> {
        let mut buf = Buf::new();
        Ok(match self.prefix(m, p, left as u32, false, &mut buf)? {
            -1 => {
                out!(self, "\n\t    (illegal prefix length)");
                Route::Illegal
            }
            -2 => Route::Trunc,
            n => {
                out!(self, "\n\t    {}", buf.s);
                if let Some(id) = path_id {
                    out!(self, "   Path Id: {id}");
                }
                Route::Read(n as usize)
            }
        })
    }

    /// The line naming a path attribute: its name, type, length and flags.
    pub(super) fn attr_line(&mut self, indent: &str, ty: u8, alen: usize, flags: u8) {
        out!(
            self,
            "{indent}{} ({ty}), length: {alen}",
            ATTRIBUTES.get(ty).unwrap_or("Unknown Attribute")
        );
        if flags == 0 {
            return;
        }
        out!(self, ", Flags [");
        for (bit, c) in [(0x80, 'O'), (0x40, 'T'), (0x20, 'P'), (0x10, 'E')] {
            if flags & bit != 0 {
                self.out.push(c);
            }
        }
        if flags & 0xf != 0 {
            out!(self, "+{:x}", flags & 0xf);
        }
        out!(self, "]");
    }
}

/// How `route4` read a route: tcpdump's `decode_prefix4` results.
enum Route {
    Read(usize),
    Illegal,
    Trunc,
}

/// The size of an attribute's length field: two bytes with the
/// extended-length flag.
pub(super) fn len_len(flags: u8) -> usize {
    if flags & 0x10 != 0 {
        2
    } else {
        1
    }
}

/// An attribute's length field at `p`: two bytes with the extended-length flag.
pub(super) fn attr_len(m: &[u8], p: usize, flags: u8) -> PResult<usize> {
    Ok(if len_len(flags) == 2 {
        usize::from(g2(m, p)?)
    } else {
        usize::from(g1(m, p)?)
    })
}
