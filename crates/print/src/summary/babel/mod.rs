//! The Babel routing protocol (UDP ports 6696 and 6697), as tcpdump 4.99's
//! `babel_print` prints it: the version, the body's length and a word for
//! each message of the body and of the trailer; with `-v` a line for each
//! message with its fields (`tlv.rs`) and sub-TLVs (`prefix.rs`).

mod prefix;
mod tlv;

use super::{g1, g2, need, out, PResult, Printer, Trunc};

/// Why a list of messages stopped early: tcpdump's `-1` and `-2`.
pub(super) enum Stop {
    Truncated,
    Invalid,
}

impl From<Trunc> for Stop {
    fn from(_: Trunc) -> Stop {
        Stop::Truncated
    }
}

impl Printer<'_> {
    /// `babel_print`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn babel(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "babel";
        out!(self, "babel");
        need(p, 0, 4)?;
        if g1(p, 0)? != 42 {
            out!(self, " invalid header");
            return Ok(());
        }
        let version = g1(p, 1)?;
        out!(self, " {version}");
        if version != 2 {
            out!(self, " unknown version");
            return Ok(());
        }
        if len < 4 {
            out!(self, " (invalid)");
            return Ok(());
        }
        let body = u32::from(g2(p, 2)?);
        out!(self, " ({body})");
        let left = len - 4;
        if left < body {
            out!(self, " (invalid)");
            return Ok(());
        }
        let mut r = self.babel_messages(p, 4, body, left);
        if r.is_ok() && left > body {
            out!(
                self,
                "{}",
                if self.opts.verbose > 0 {
                    "\n\t----"
                } else {
                    " |"
                }
            );
            r = self.babel_messages(p, 4 + body as usize, left - body, left - body);
        }
        match r {
            Ok(()) => Ok(()),
            Err(Stop::Truncated) => Err(Trunc),
            Err(Stop::Invalid) => {
                out!(self, " (invalid)");
                Ok(())
            }
        }
    }

    /// `babel_print_v2_tlvs`: the messages in `tlvs` bytes from
    /// `at`, of which `remaining` are in the datagram.
    fn babel_messages(
        &mut self,
        p: &[u8],
        at: usize,
        tlvs: u32,
        remaining: u32,
    ) -> Result<(), Stop> {
        let check = |i: u32, l: u32| {
            if i + l > tlvs || i + l > remaining {
                Err(Stop::Invalid)
            } else {
                Ok(())
            }
        };
        // The prefixes an update's omitted bytes come from, per list.
        let mut prev = prefix::Previous::default();
        let mut i = 0u32;
        while i < tlvs {
            let m = at + i as usize;
            check(i, 1)?;
            let kind = g1(p, m)?;
            if kind == 0 {
                out!(
                    self,
                    "{}",
                    if self.opts.verbose > 0 {
                        "\n\tPad 1"
                    } else {
                        " pad1"
                    }
                );
                i += 1;
                continue;
            }
            check(i, 2)?;
            let len = u32::from(g1(p, m + 1)?);
            check(i, 2 + len)?;
            need(p, m, 2 + len as usize)?;
            if self.opts.verbose > 0 {
                self.babel_tlv(p, m, kind, len, &mut prev)?;
                i += len + 2;
                continue;
            }
            let word = match kind {
                1 => "padN",
                2 => "ack-req",
                3 => "ack",
                4 => "hello",
                5 => "ihu",
                6 => "router-id",
                7 => "nh",
                8 => {
                    out!(self, " update");
                    if len < 10 {
                        return Err(Stop::Invalid);
                    }
                    let flags = g1(p, m + 3)?;
                    for (bit, name) in [(0x80, "/prefix"), (0x40, "/id")] {
                        if flags & bit != 0 {
                            out!(self, "{name}");
                        }
                    }
                    if flags & 0x3f != 0 {
                        out!(self, "/unknown");
                    }
                    ""
                }
                9 => "route-request",
                10 => "seqno-request",
                11 => "tspc",
                12 => "hmac",
                13 => "ss-update",
                14 => "ss-request",
                15 => "ss-mh-request",
                16 => "mac",
                17 => "pc",
                18 => "challenge_request",
                19 => "challenge_reply",
                _ => "unknown",
            };
            if !word.is_empty() {
                out!(self, " {word}");
            }
            i += len + 2;
        }
        Ok(())
    }
}
