//! The 802.11 primitives of libpcap's grammar (`p80211`): `type T [subtype S]`,
//! `subtype S` and `dir D`, with its name tables. The names are turned into
//! numbers while parsing, where libpcap's grammar refuses an unknown one.

use super::super::ast::{PrimKind, Span};
use super::super::lexer::{Kw, TokKind};
use super::Parser;
use crate::Error;

/// The frame control's first byte: type bits and subtype bits.
const TYPE_MASK: u32 = 0x0c;
const SUBTYPE_MASK: u32 = 0xf0;
const MGT: u32 = 0x00;
const CTL: u32 = 0x04;
const DATA: u32 = 0x08;

const TYPES: &[(&str, u32)] = &[
    ("data", DATA),
    ("mgt", MGT),
    ("management", MGT),
    ("ctl", CTL),
    ("control", CTL),
];
const MGT_SUBTYPES: &[(&str, u32)] = &[
    ("assocreq", 0x00),
    ("assoc-req", 0x00),
    ("assocresp", 0x10),
    ("assoc-resp", 0x10),
    ("reassocreq", 0x20),
    ("reassoc-req", 0x20),
    ("reassocresp", 0x30),
    ("reassoc-resp", 0x30),
    ("probereq", 0x40),
    ("probe-req", 0x40),
    ("proberesp", 0x50),
    ("probe-resp", 0x50),
    ("beacon", 0x80),
    ("atim", 0x90),
    ("disassoc", 0xa0),
    ("disassociation", 0xa0),
    ("auth", 0xb0),
    ("authentication", 0xb0),
    ("deauth", 0xc0),
    ("deauthentication", 0xc0),
];
const CTL_SUBTYPES: &[(&str, u32)] = &[
    ("ps-poll", 0xa0),
    ("rts", 0xb0),
    ("cts", 0xc0),
    ("ack", 0xd0),
    ("cf-end", 0xe0),
    ("cf-end-ack", 0xf0),
];
const DATA_SUBTYPES: &[(&str, u32)] = &[
    ("data", 0x00),
    ("data-cf-ack", 0x10),
    ("data-cf-poll", 0x20),
    ("data-cf-ack-poll", 0x30),
    ("null", 0x40),
    ("cf-ack", 0x50),
    ("cf-poll", 0x60),
    ("cf-ack-poll", 0x70),
    ("qos-data", 0x80),
    ("qos-data-cf-ack", 0x90),
    ("qos-data-cf-poll", 0xa0),
    ("qos-data-cf-ack-poll", 0xb0),
    ("qos", 0xc0),
    ("qos-cf-poll", 0xe0),
    ("qos-cf-ack-poll", 0xf0),
];
/// The subtype tables in libpcap's order, each under its type (`subtype NAME`
/// takes the first table that has the name).
const SUBTYPES: &[(u32, &[(&str, u32)])] = &[
    (MGT, MGT_SUBTYPES),
    (CTL, CTL_SUBTYPES),
    (DATA, DATA_SUBTYPES),
];
const DIRS: &[(&str, u32)] = &[("nods", 0), ("tods", 1), ("fromds", 2), ("dstods", 3)];

fn lookup(table: &[(&str, u32)], name: &str) -> Option<u32> {
    table
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, v)| v)
}

/// A name or a number after `type`, `subtype` or `dir`.
enum Word {
    Num(u32),
    Name(String),
}

impl Parser<'_> {
    /// `type`, `subtype` or `dir` (the keyword not yet taken) and what follows it.
    pub(super) fn p80211(&mut self) -> Result<PrimKind, Error> {
        let kw = self.peek_kw();
        self.bump();
        match kw {
            Some(Kw::Type) => {
                let ty = self.bits_or_name("type", TYPE_MASK, |p, s, span| {
                    lookup(TYPES, s)
                        .ok_or_else(|| p.invalid(format!("unknown 802.11 type name \"{s}\""), span))
                })?;
                if !self.eat_kw(Kw::Subtype) {
                    return Ok(PrimKind::P80211Type {
                        value: ty,
                        mask: TYPE_MASK,
                    });
                }
                // A subtype name is looked up in the table of the type given.
                let sub = self.bits_or_name("subtype", SUBTYPE_MASK, |p, name, span| {
                    let Some(&(_, table)) = SUBTYPES.iter().find(|(t, _)| *t == ty) else {
                        return Err(p.invalid("unknown 802.11 type", span));
                    };
                    lookup(table, name).ok_or_else(|| {
                        p.invalid(format!("unknown 802.11 subtype name \"{name}\""), span)
                    })
                })?;
                Ok(PrimKind::P80211Type {
                    value: ty | sub,
                    mask: TYPE_MASK | SUBTYPE_MASK,
                })
            }
            Some(Kw::Subtype) => {
                let span = self.span();
                let TokKind::Id(name) = self.peek().clone() else {
                    return Err(self.unexpected("an 802.11 frame subtype name after 'subtype'"));
                };
                self.bump();
                let value = SUBTYPES
                    .iter()
                    .find_map(|&(t, table)| lookup(table, &name).map(|v| v | t))
                    .ok_or_else(|| self.invalid("unknown 802.11 type name", span))?;
                Ok(PrimKind::P80211Type {
                    value,
                    mask: TYPE_MASK | SUBTYPE_MASK,
                })
            }
            _ => {
                let (d, span) = self.word("an 802.11 direction after 'dir'")?;
                Ok(PrimKind::P80211Dir(match d {
                    Word::Num(n) => n,
                    Word::Name(s) => lookup(DIRS, &s)
                        .ok_or_else(|| self.invalid("unknown 802.11 direction", span))?,
                }))
            }
        }
    }

    /// A refusal of what the text names (libpcap's grammar actions), not of its form.
    fn invalid(&self, msg: impl Into<String>, span: Span) -> Error {
        Error::new(msg, span, self.text)
    }

    /// After `type` or `subtype` (`what`): a number with no bit outside `mask`,
    /// or a name that `name` looks up.
    fn bits_or_name(
        &mut self,
        what: &str,
        mask: u32,
        name: impl FnOnce(&Self, &str, Span) -> Result<u32, Error>,
    ) -> Result<u32, Error> {
        let (w, span) = self.word(&format!("an 802.11 frame {what} after '{what}'"))?;
        match w {
            Word::Num(n) if n & !mask != 0 => {
                Err(self.invalid(format!("invalid 802.11 {what} value 0x{n:02x}"), span))
            }
            Word::Num(n) => Ok(n),
            Word::Name(s) => name(self, &s, span),
        }
    }

    fn word(&mut self, expected: &str) -> Result<(Word, Span), Error> {
        let span = self.span();
        let w = match self.peek() {
            TokKind::Num(n) => Word::Num(*n),
            TokKind::Id(s) => Word::Name(s.clone()),
            _ => return Err(self.unexpected(expected)),
        };
        self.bump();
        Ok((w, span))
    }
}
