//! ForCES (RFC 5810) messages in SCTP DATA chunks, as tcpdump 4.99.3's
//! `forces_print` prints them: the message type; with `-v` the version,
//! length, flags, source, destination and correlator; with `-vv` the flags
//! decoded. A header tcpdump rejects is dumped in hex between brackets.
//! Not decoded: the top-level TLVs' contents, which tcpdump prints only with
//! `-vvv` (it also checks them, and dumps the message, when they are bad).

use super::{g1, g2, g4, g8, need, out, tail, PResult, Printer};

/// The common header's length.
const HEADER_LEN: u32 = 24;

/// The message types: value, name, and tcpdump's top-level TLV rule (`Zero`:
/// none allowed; `Optional`; `Required`).
#[derive(Clone, Copy, PartialEq)]
enum Tlvs {
    Zero,
    Optional,
    Required,
}

fn message_type(tom: u8) -> Option<(&'static str, Tlvs)> {
    Some(match tom {
        0x01 => ("Association Setup", Tlvs::Optional),
        0x02 => ("Association TearDown", Tlvs::Required),
        0x03 => ("Config", Tlvs::Required),
        0x04 => ("Query", Tlvs::Required),
        0x05 => ("Event Notification", Tlvs::Required),
        0x06 => ("Packet Redirect", Tlvs::Required),
        0x0f => ("HeartBeat", Tlvs::Zero),
        0x11 => ("Association Response", Tlvs::Required),
        0x13 => ("Config Response", Tlvs::Required),
        0x14 => ("Query Response", Tlvs::Required),
        _ => return None,
    })
}

/// `ForCES_node`: what kind of node an id names.
fn node(id: u32) -> &'static str {
    match id {
        0..=0x3fff_ffff => "FE",
        0x4000_0000..=0x7fff_ffff => "CE",
        0xc000_0000..=0xffff_ffef => "AllMulticast",
        0xffff_fffd => "AllCEsBroadcast",
        0xffff_fffe => "AllFEsBroadcast",
        0xffff_ffff => "AllBroadcast",
        _ => "ForCESreserved",
    }
}

impl Printer<'_> {
    /// `forces_print`: a message in `len` bytes of DATA chunk payload.
    pub(super) fn forces(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "forces";
        need(p, 0, HEADER_LEN as usize)?;
        let tom = g1(p, 1)?;
        let valid = matches!(tom, 1..=6 | 0x0f | 0x11..=0x14);
        if !valid {
            out!(self, "Invalid ForCES message type {tom}\n");
            return self.forces_dump(p, len);
        }
        let mlen = u32::from(g2(p, 2)?) << 2;
        let Some((name, tlvs)) = message_type(tom) else {
            out!(self, "\n\tUnknown ForCES message type=0x{tom:x}");
            return self.forces_dump(p, len);
        };
        out!(self, "\n\tForCES {name} ");
        if !(len >= HEADER_LEN && mlen >= HEADER_LEN && mlen == len) {
            out!(
                self,
                "Illegal ForCES pkt len - min {HEADER_LEN}, total recvd {len}, advertised {mlen} "
            );
            return self.forces_dump(p, len);
        }
        let flags = g4(p, 20)?;
        if self.opts.verbose >= 1 {
            let (sid, did) = (g4(p, 4)?, g4(p, 8)?);
            out!(
                self,
                "\n\tForCES Version {} len {mlen}B flags 0x{flags:08x} ",
                g1(p, 0)? >> 4
            );
            out!(
                self,
                "\n\tSrcID 0x{sid:x}({}) DstID 0x{did:x}({}) Correlator 0x{:x}",
                node(sid),
                node(did),
                g8(p, 12)?
            );
        }
        if self.opts.verbose >= 2 {
            self.forces_flags(flags);
        }
        // `forces_type_print`'s check of the top-level TLVs' presence.
        let rlen = mlen - HEADER_LEN;
        if rlen > 4 && tlvs == Tlvs::Zero {
            out!(self, "<0x1>Illegal Top level TLV!\n");
            return self.forces_dump(p, len);
        }
        if rlen <= 4 && tlvs == Tlvs::Required {
            out!(self, "\tTop level TLV Data missing!\n");
            return self.forces_dump(p, len);
        }
        Ok(())
    }

    fn forces_flags(&mut self, flags: u32) {
        let ack = flags >> 30;
        let em = (flags >> 22) & 3;
        let at = (flags >> 21) & 1;
        let tp = (flags >> 19) & 3;
        let acks = ["NoACK", "SuccessACK", "FailureACK", "AlwaysACK"];
        let ems = [
            "EMReserved",
            "execute-all-or-none",
            "execute-until-failure",
            "continue-execute-on-failure",
        ];
        let ats = ["Standalone", "2PCtransaction"];
        let tps = [
            "StartofTransaction",
            "MiddleofTransaction",
            "EndofTransaction",
            "abort",
        ];
        out!(
            self,
            "\n\tForCES flags:\n\t  {}(0x{ack:x}), prio={}, {}(0x{em:x}),\n\t  {}(0x{at:x}), {}(0x{tp:x})\n",
            acks[ack as usize],
            (flags >> 27) & 7,
            ems[em as usize],
            ats[at as usize],
            tps[tp as usize]
        );
        out!(
            self,
            "\t  Extra flags: rsv(b5-7) 0x{:x} rsv(b13-31) 0x{:x}\n",
            (flags >> 24) & 7,
            flags & 0x7ffff
        );
    }

    /// tcpdump's `error:` label: the message in hex between brackets, cut
    /// (and marked truncated) at the end of the capture.
    fn forces_dump(&mut self, p: &[u8], len: u32) -> PResult {
        self.unknown_data(p, 0, len as usize, "\n\t[");
        if tail(p, 0).len() < len as usize {
            return Err(super::Trunc);
        }
        out!(self, "\n\t]");
        Ok(())
    }
}
