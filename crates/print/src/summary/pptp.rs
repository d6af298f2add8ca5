//! PPTP's control connection (TCP port 1723), as tcpdump 4.99's
//! `pptp_print` prints it: the header and each control message's fields,
//! with `-v` the length, message type, cookie and the meanings of codes.

use super::{g1, g2, g4, out, PResult, Printer};

const MSGS: [&str; 16] = [
    "NOT_DEFINED",
    "SCCRQ",
    "SCCRP",
    "StopCCRQ",
    "StopCCRP",
    "ECHORQ",
    "ECHORP",
    "OCRQ",
    "OCRP",
    "ICRQ",
    "ICRP",
    "ICCN",
    "CCRQ",
    "CDN",
    "WEN",
    "SLI",
];

/// One field of a control message, in wire order.
#[derive(Clone, Copy)]
enum F {
    /// `NAME(%u)` of two bytes.
    U16(&'static str),
    /// `NAME(%u)` of four bytes.
    U32(&'static str),
    /// `NAME(0x%08x)` of four bytes.
    Hex32(&'static str),
    /// Reserved bytes (1 or 2), printed only when not zero.
    Res(usize),
    ProtoVer,
    /// The result code, with `-v` its meaning for the message type.
    Result,
    ErrCode,
    FramingCap,
    BearerCap,
    BearerType,
    FramingType,
    /// `NAME(...)`: text of at most this many bytes, NUL-padded.
    Text(&'static str, usize),
    /// Text whose length is the two-byte field this many bytes before it
    /// (at most 64 bytes).
    TextLen(&'static str, usize),
    Reason,
}

use F::*;

fn fields(t: u16) -> &'static [F] {
    const HOST: [F; 2] = [Text("HOSTNAME", 64), Text("VENDOR", 64)];
    match t {
        1 => &[
            ProtoVer,
            Res(2),
            FramingCap,
            BearerCap,
            U16("MAX_CHAN"),
            U16("FIRM_REV"),
            HOST[0],
            HOST[1],
        ],
        2 => &[
            ProtoVer,
            Result,
            ErrCode,
            FramingCap,
            BearerCap,
            U16("MAX_CHAN"),
            U16("FIRM_REV"),
            HOST[0],
            HOST[1],
        ],
        3 => &[Reason, Res(1), Res(2)],
        4 => &[Result, ErrCode, Res(2)],
        5 => &[U32("ID")],
        6 => &[U32("ID"), Result, ErrCode, Res(2)],
        7 => &[
            U16("CALL_ID"),
            U16("CALL_SER_NUM"),
            U32("MIN_BPS"),
            U32("MAX_BPS"),
            BearerType,
            FramingType,
            U16("RECV_WIN"),
            U16("PROC_DELAY"),
            U16("PHONE_NO_LEN"),
            Res(2),
            TextLen("PHONE_NO", 4),
            Text("SUB_ADDR", 64),
        ],
        8 => &[
            U16("CALL_ID"),
            U16("PEER_CALL_ID"),
            Result,
            ErrCode,
            U16("CAUSE_CODE"),
            U32("CONN_SPEED"),
            U16("RECV_WIN"),
            U16("PROC_DELAY"),
            U32("PHY_CHAN_ID"),
        ],
        9 => &[
            U16("CALL_ID"),
            U16("CALL_SER_NUM"),
            BearerType,
            U32("PHY_CHAN_ID"),
            U16("DIALED_NO_LEN"),
            U16("DIALING_NO_LEN"),
            TextLen("DIALED_NO", 4),
            TextLen("DIALING_NO", 66),
            Text("SUB_ADDR", 64),
        ],
        10 => &[
            U16("CALL_ID"),
            U16("PEER_CALL_ID"),
            Result,
            ErrCode,
            U16("RECV_WIN"),
            U16("PROC_DELAY"),
            Res(2),
        ],
        11 => &[
            U16("PEER_CALL_ID"),
            Res(2),
            U32("CONN_SPEED"),
            U16("RECV_WIN"),
            U16("PROC_DELAY"),
            FramingType,
        ],
        12 => &[U16("CALL_ID"), Res(2)],
        13 => &[
            U16("CALL_ID"),
            Result,
            ErrCode,
            U16("CAUSE_CODE"),
            Res(2),
            Text("CALL_STATS", 128),
        ],
        14 => &[
            U16("PEER_CALL_ID"),
            Res(2),
            U32("CRC_ERR"),
            U32("FRAMING_ERR"),
            U32("HARDWARE_OVERRUN"),
            U32("BUFFER_OVERRUN"),
            U32("TIMEOUT_ERR"),
            U32("ALIGN_ERR"),
        ],
        15 => &[
            U16("PEER_CALL_ID"),
            Res(2),
            Hex32("SEND_ACCM"),
            Hex32("RECV_ACCM"),
        ],
        _ => &[],
    }
}

/// The meaning of a result code in a message of type `t`.
fn result_name(t: u16, code: u8) -> Option<&'static str> {
    let names: &[&str] = match t {
        2 => &[
            "Successful channel establishment",
            "General error",
            "Command channel already exists",
            "Requester is not authorized to establish a command channel",
            "The protocol version of the requester is not supported",
        ],
        4 | 6 => &["OK", "General Error"],
        8 => &[
            "Connected",
            "General Error",
            "No Carrier",
            "Busy",
            "No Dial Tone",
            "Time-out",
            "Do Not Accept",
        ],
        10 => &["Connect", "General Error", "Do Not Accept"],
        13 => &["Lost Carrier", "General Error", "Admin Shutdown", "Request"],
        _ => return None,
    };
    Some(
        names
            .get((code as usize).wrapping_sub(1))
            .copied()
            .unwrap_or("?"),
    )
}

impl Printer<'_> {
    /// `pptp_print`: a control message at the start of a TCP payload.
    pub(super) fn pptp(&mut self, p: &[u8]) -> PResult {
        self.proto = "pptp";
        out!(self, ": pptp");
        let v = self.opts.verbose > 0;
        if v {
            out!(self, " Length={}", g2(p, 0)?);
            match g2(p, 2)? {
                1 => out!(self, " CTRL-MSG"),
                2 => out!(self, " MGMT-MSG"),
                _ => out!(self, " UNKNOWN-MSG-TYPE"),
            }
        }
        let mc = g4(p, 4)?;
        if mc != 0x1a2b3c4d {
            out!(self, " UNEXPECTED Magic-Cookie!!({mc:08x})");
        }
        if v || mc != 0x1a2b3c4d {
            out!(self, " Magic-Cookie={mc:08x}");
        }
        let t = g2(p, 8)?;
        match MSGS.get(t as usize) {
            Some(n) => out!(self, " CTRL_MSGTYPE={n}"),
            None => out!(self, " UNKNOWN_CTRL_MSGTYPE({t})"),
        }
        self.pptp_reserved(p, 10, 2)?;
        let mut at = 12;
        for &f in fields(t) {
            at += self.pptp_field(p, at, f, t)?;
        }
        Ok(())
    }

    fn pptp_reserved(&mut self, p: &[u8], at: usize, n: usize) -> PResult {
        let r = if n == 1 {
            u32::from(g1(p, at)?)
        } else {
            u32::from(g2(p, at)?)
        };
        if r != 0 {
            out!(self, " [ERROR: reserved={r} must be zero]");
        }
        Ok(())
    }

    /// One field at `at`; its size.
    fn pptp_field(&mut self, p: &[u8], at: usize, f: F, t: u16) -> PResult<usize> {
        let v = self.opts.verbose > 0;
        Ok(match f {
            U16(n) => {
                out!(self, " {n}({})", g2(p, at)?);
                2
            }
            U32(n) => {
                out!(self, " {n}({})", g4(p, at)?);
                4
            }
            Hex32(n) => {
                out!(self, " {n}(0x{:08x})", g4(p, at)?);
                4
            }
            Res(n) => {
                self.pptp_reserved(p, at, n)?;
                n
            }
            ProtoVer => {
                out!(self, " PROTO_VER({}.{})", g1(p, at)?, g1(p, at + 1)?);
                2
            }
            Result => {
                let c = g1(p, at)?;
                out!(self, " RESULT_CODE({c}");
                if let (true, Some(n)) = (v, result_name(t, c)) {
                    out!(self, ":{n}");
                }
                out!(self, ")");
                1
            }
            ErrCode => {
                let c = g1(p, at)?;
                out!(self, " ERR_CODE({c}");
                if v {
                    let names = [
                        "None",
                        "Not-Connected",
                        "Bad-Format",
                        "Bad-Value",
                        "No-Resource",
                        "Bad-Call-ID",
                        "PAC-Error",
                    ];
                    out!(self, ":{}", names.get(c as usize).unwrap_or(&"?"));
                }
                out!(self, ")");
                1
            }
            FramingCap | BearerCap => {
                let x = g4(p, at)?;
                let (name, first, second) = match f {
                    FramingCap => ("FRAME_CAP", (1, "A"), (2, "S")),
                    _ => ("BEARER_CAP", (2, "D"), (1, "A")),
                };
                out!(self, " {name}(");
                for (bit, s) in [first, second] {
                    if x & bit != 0 {
                        out!(self, "{s}");
                    }
                }
                out!(self, ")");
                4
            }
            BearerType | FramingType => {
                let x = g4(p, at)?;
                let (name, names) = match f {
                    BearerType => ("BEARER_TYPE", ["A", "D", "Any"]),
                    _ => ("FRAME_TYPE", ["A", "S", "E"]),
                };
                let s = names.get((x as usize).wrapping_sub(1)).unwrap_or(&"?");
                out!(self, " {name}({s})");
                4
            }
            Text(n, size) => {
                out!(self, " {n}(");
                self.jnp(p, at, size)?;
                out!(self, ")");
                size
            }
            TextLen(n, back) => {
                let len = (g2(p, at - back)? as usize).min(64);
                out!(self, " {n}(");
                self.jnp(p, at, len)?;
                out!(self, ")");
                64
            }
            Reason => {
                let r = g1(p, at)?;
                out!(self, " REASON({r}");
                if v {
                    let s = match r {
                        1 => "None",
                        2 => "Stop-Protocol",
                        3 => "Stop-Local-Shutdown",
                        _ => "?",
                    };
                    out!(self, ":{s}");
                }
                out!(self, ")");
                1
            }
        })
    }
}
