//! RSVP's line without `-v`, as tcpdump's `rsvp_print` prints it; with
//! `-v` the header and objects of `rsvp_obj.rs`.

use super::ospf2::put;
use super::{g1, need, PResult, Printer};

pub(super) fn msg_type_name(t: u8) -> Option<&'static str> {
    Some(match t {
        1 => "Path",
        2 => "Resv",
        3 => "PathErr",
        4 => "ResvErr",
        5 => "PathTear",
        6 => "ResvTear",
        7 => "ResvConf",
        12 => "Bundle",
        13 => "Acknowledgement",
        14 => "Hello (Old)",
        15 => "Refresh",
        20 => "Hello",
        _ => return None,
    })
}

impl Printer<'_> {
    /// `rsvp_print`: `bp` is the IP payload, `len` its length.
    pub(super) fn rsvp(&mut self, bp: &[u8], len: u32) -> PResult {
        self.proto = "rsvp";
        need(bp, 0, 8)?;
        let version = g1(bp, 0)? >> 4;
        if version != 1 {
            put!(self, "ERROR: RSVP version {version} packet not supported");
            return Ok(());
        }
        if self.opts.verbose > 0 {
            return self.rsvp_verbose(bp);
        }
        let t = g1(bp, 1)?;
        let name = msg_type_name(t).map_or_else(|| format!("unknown ({t})"), str::to_string);
        put!(self, "RSVPv{version} {name} Message, length: {len}");
        Ok(())
    }
}
