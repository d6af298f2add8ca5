//! The BER reader and printer of tcpdump 4.99.3's `print-snmp.c`
//! (`asn1_parse`, `asn1_print`, `asn1_print_string`, `asn1_print_octets`),
//! with its bracketed error strings.
//!
//! An element is read against two bounds, as tcpdump reads it: `len`, the
//! length the enclosing element (or the UDP header) declares, whose overruns
//! are printed errors, and the capture, whose end is truncation. The tag and
//! length octets are read like tcpdump's `GET_U_1` (a truncation that ends
//! the packet, `Err(Trunc)`); a long-form length or a content cut short by the
//! capture is tcpdump's `ND_TCHECK_LEN`: ` [|snmp]` printed at once, and the
//! callers return as from any other error. Lengths from the packet are only
//! compared and sliced with, never allocated.

use super::super::{g1, head, out, PResult, Printer};
use super::mib;

/// tcpdump's `Universal` type names (the tags of class 0).
const UNIVERSAL: [&str; 18] = [
    "U-0",
    "Boolean",
    "Integer",
    "Bitstring",
    "String",
    "Null",
    "ObjID",
    "ObjectDes",
    "U-8",
    "U-9",
    "U-10",
    "U-11",
    "U-12",
    "U-13",
    "U-14",
    "U-15",
    "Sequence",
    "Set",
];

/// `Application`: the Internet SMI's types.
const APPLICATION: [&str; 7] = [
    "IpAddress",
    "Counter",
    "Gauge",
    "TimeTicks",
    "Opaque",
    "C-5",
    "Counter64",
];

/// `Context`: the PDU names.
pub(super) const CONTEXT: [&str; 9] = [
    "GetRequest",
    "GetNextRequest",
    "GetResponse",
    "SetRequest",
    "Trap",
    "GetBulk",
    "Inform",
    "V2Trap",
    "Report",
];

/// `Exceptions`: SNMPv2's varbind exceptions.
const EXCEPTIONS: [&str; 3] = ["noSuchObject", "noSuchInstance", "endOfMibView"];

/// `Private`: the SMI defines none.
const PRIVATE: [&str; 1] = ["P-0"];

/// The type names of each class, by the two class bits. tcpdump's `Class`
/// table names its classes with the macro `defineCLASS(x) { "x", ... }`,
/// which ANSI C does not stringify: every class is printed as `x`.
const CLASSES: [&[&str]; 4] = [&UNIVERSAL, &APPLICATION, &CONTEXT, &PRIVATE];

/// The PDU tags (`Context`'s indices) the printers test.
pub(super) const GETREQ: u8 = 0;
pub(super) const GETNEXTREQ: u8 = 1;
pub(super) const SETREQ: u8 = 3;
pub(super) const TRAP: u8 = 4;
pub(super) const GETBULKREQ: u8 = 5;
pub(super) const INFORMREQ: u8 = 6;
pub(super) const V2TRAP: u8 = 7;
pub(super) const REPORT: u8 = 8;

/// What an element decoded to (tcpdump's `BE_*` types with their data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    /// A context-specific primitive tag that is no exception (`BE_ANY`).
    Any,
    Null,
    Octet,
    Oid,
    Int(i32),
    Uns(u32),
    Uns64(u64),
    Str,
    Seq,
    InetAddr,
    Pdu,
    /// `noSuchObject`, `noSuchInstance`, `endOfMibView` by their tag.
    Exception(u8),
}

/// One decoded element (tcpdump's `struct be`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Be<'a> {
    /// The content's declared length, all of it captured.
    pub asnlen: u32,
    /// From the content to the end of the capture: the elements inside are
    /// read from here, and may read past `asnlen` where tcpdump does.
    pub data: &'a [u8],
    pub id: u8,
    pub ty: Ty,
}

impl<'a> Be<'a> {
    /// The content (checked captured by the parse).
    pub(super) fn content(&self) -> &'a [u8] {
        head(self.data, self.asnlen as usize)
    }
}

impl Printer<'_> {
    /// `asn1_parse`: the element at the start of `p`, of which `len` bytes
    /// are declared, and the bytes it takes; `None` when it printed why it
    /// could not be read (the caller returns).
    pub(super) fn asn1_parse<'a>(
        &mut self,
        p: &'a [u8],
        mut len: u32,
    ) -> PResult<Option<(Be<'a>, u32)>> {
        if len < 1 {
            out!(self, "[nothing to parse]");
            return Ok(None);
        }
        let b0 = g1(p, 0)?;
        let mut id = b0 & 0x1f;
        let form = (b0 & 0x20) >> 5;
        let class = (b0 & 0xc0) >> 6;
        let mut at = 1usize;
        len -= 1;
        if id == 0x1f {
            // The extended tag, 7 bits an octet; like tcpdump's, it keeps
            // only the low 8 bits.
            id = 0;
            loop {
                let c = g1(p, at)?;
                if c & 0x80 == 0 {
                    break;
                }
                if len < 1 {
                    out!(self, "[Xtagfield?]");
                    return Ok(None);
                }
                id = (id << 7) | (c & 0x7f);
                len -= 1;
                at += 1;
            }
            if len < 1 {
                out!(self, "[Xtagfield?]");
                return Ok(None);
            }
            id = (id << 7) | g1(p, at)?;
            len -= 1;
            at += 1;
        }
        if len < 1 {
            out!(self, "[no asnlen]");
            return Ok(None);
        }
        let mut asnlen = u32::from(g1(p, at)?);
        at += 1;
        len -= 1;
        if asnlen & 0x80 != 0 {
            let noct = asnlen % 0x80;
            asnlen = 0;
            if len < noct {
                out!(self, "[asnlen? {}<{}]", len as i32, noct as i32);
                return Ok(None);
            }
            let Some(octets) = p.get(at..at + noct as usize) else {
                return self.asn1_trunc();
            };
            for &o in octets {
                asnlen = (asnlen << 8) | u32::from(o);
            }
            at += noct as usize;
            len -= noct;
        }
        if len < asnlen {
            out!(self, "[len{}<asnlen{}]", len as i32, asnlen);
            return Ok(None);
        }
        let names = CLASSES[class as usize];
        let formc = if form == 0 { 'P' } else { 'C' };
        let Some(&name) = names.get(id as usize) else {
            out!(self, "[id?{formc}/x/{id}]");
            return Ok(None);
        };
        let data = &p[at.min(p.len())..];
        if (data.len() as u64) < u64::from(asnlen) {
            return self.asn1_trunc();
        }
        let content = head(data, asnlen as usize);
        let ty = match (form, class) {
            (0, 0) => match id {
                4 => Ty::Str,
                2 => {
                    if asnlen == 0 {
                        out!(self, "[asnlen=0]");
                        return Ok(None);
                    }
                    let neg = content[0] & 0x80 != 0;
                    let init = if neg { u32::MAX } else { 0 };
                    Ty::Int(content.iter().fold(init, |d, &b| (d << 8) | u32::from(b)) as i32)
                }
                6 => Ty::Oid,
                5 => Ty::Null,
                _ => {
                    out!(self, "[P/U/{name}]");
                    Ty::Octet
                }
            },
            (0, 1) => match id {
                0 => Ty::InetAddr,
                1..=3 => Ty::Uns(content.iter().fold(0u32, |d, &b| (d << 8) | u32::from(b))),
                6 => Ty::Uns64(content.iter().fold(0u64, |d, &b| (d << 8) | u64::from(b))),
                _ => {
                    out!(self, "[P/A/{name}]");
                    Ty::Octet
                }
            },
            (0, 2) => match id {
                0..=2 => Ty::Exception(id),
                _ => Ty::Any,
            },
            (0, _) => {
                out!(self, "[P/x/{name}]");
                Ty::Octet
            }
            (_, 0) if id == 16 => Ty::Seq,
            (_, 0) => {
                out!(self, "C/U/{name}");
                Ty::Octet
            }
            (_, 2) => Ty::Pdu,
            _ => {
                out!(self, "C/x/{name}");
                Ty::Octet
            }
        };
        let be = Be {
            asnlen,
            data,
            id,
            ty,
        };
        Ok(Some((be, asnlen + at as u32)))
    }

    /// `goto trunc` in the BER reader: the marker now, and the caller
    /// returns as from an error.
    fn asn1_trunc<'a>(&mut self) -> PResult<Option<(Be<'a>, u32)>> {
        let _ = self.caught();
        self.trunc();
        Ok(None)
    }

    /// `asn1_print_octets`: `_xx` a byte.
    pub(super) fn asn1_octets(&mut self, e: &Be) {
        for b in e.content() {
            out!(self, "_{b:02x}");
        }
    }

    /// `asn1_print_string`: quoted when every byte is printable, else the
    /// bytes in hex joined by `_`.
    pub(super) fn asn1_string(&mut self, e: &Be) {
        let s = e.content();
        if s.iter().all(|&c| super::super::is_print(c)) {
            out!(self, "\"");
            // Printable ASCII only, so one char a byte.
            self.out.extend(s.iter().map(|&c| c as char));
            out!(self, "\"");
        } else {
            for (i, b) in s.iter().enumerate() {
                out!(self, "{}{b:02x}", if i == 0 { "" } else { "_" });
            }
        }
    }

    /// `asn1_print`: the element's value.
    pub(super) fn asn1_print(&mut self, e: &Be) {
        match e.ty {
            Ty::Octet => self.asn1_octets(e),
            Ty::Null => {}
            Ty::Oid => self.asn1_oid(e.content()),
            Ty::Int(v) => out!(self, "{v}"),
            Ty::Uns(v) => out!(self, "{v}"),
            Ty::Uns64(v) => out!(self, "{v}"),
            Ty::Str => self.asn1_string(e),
            Ty::Seq => out!(self, "Seq({})", e.asnlen),
            Ty::InetAddr => {
                if e.asnlen != 4 {
                    out!(self, "[inetaddr len!=4]");
                }
                for (i, b) in e.content().iter().enumerate() {
                    out!(self, "{}{b}", if i == 0 { "" } else { "." });
                }
            }
            Ty::Exception(id) => out!(self, "[{}]", EXCEPTIONS[id as usize]),
            Ty::Pdu => out!(self, "{}({})", CONTEXT[e.id as usize], e.asnlen),
            Ty::Any => out!(self, "[BE_ANY!?]"),
        }
    }

    /// `asn1_print`'s object identifier: dotted numbers with `-n`; without
    /// it, the names of tcpdump's compiled-in MIB where it has them, after
    /// the abbreviation of a well-known prefix (`E:`, `X:`, `S:`, or none
    /// for mib-2).
    fn asn1_oid(&mut self, oid: &[u8]) {
        let mut rest = oid;
        // -1: the first sub-identifier (two arcs) is next; 1: the next name
        // is printed without its leading dot.
        let mut first: i32 = -1;
        let mut node = None;
        let named = self.opts.names.is_some();
        if named && oid.len() > 2 {
            if let Some((prefix, len, children)) = mib::abbreviation(oid) {
                out!(self, "{prefix}");
                rest = &oid[len..];
                node = Some(children);
                first = 1;
            }
        }
        // tcpdump's `int o`: shifted on past 32 bits, it wraps.
        let mut o: i32 = 0;
        for &b in rest {
            o = (o << 7).wrapping_add(i32::from(b & 0x7f));
            if b & 0x80 != 0 {
                continue;
            }
            if first < 0 {
                if named {
                    node = Some(mib::ROOT);
                }
                first = 0;
                let s = (o / 40).min(2);
                self.oid_arc(&mut node, s, false);
                o = o.wrapping_sub(s.wrapping_mul(40));
            }
            self.oid_arc(&mut node, o, first > 0);
            first = (first - 1).max(0);
            o = 0;
        }
    }

    /// `OBJ_PRINT`: one arc, by its name among `node`'s when it has one
    /// (then going down to its children), else its number.
    fn oid_arc(&mut self, node: &mut Option<&'static [mib::Node]>, o: i32, nodot: bool) {
        let dot = if nodot { "" } else { "." };
        match node.and_then(|n| mib::find(n, o)) {
            Some(n) => {
                out!(self, "{dot}{}", n.name);
                *node = Some(n.children);
            }
            None => {
                *node = None;
                out!(self, "{dot}{}", o as u32);
            }
        }
    }
}
