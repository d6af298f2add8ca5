//! L2TP (UDP port 1701), as tcpdump 4.99's `l2tp_print` prints it: the
//! flags, tunnel and session, and a control message's AVPs, or a data
//! message's PPP frame in braces.

use super::{g1, g2, g4, need, out, print_char, PResult, Printer};

const AVPS: [&str; 40] = [
    "MSGTYPE",
    "RESULT_CODE",
    "PROTO_VER",
    "FRAMING_CAP",
    "BEARER_CAP",
    "TIE_BREAKER",
    "FIRM_VER",
    "HOST_NAME",
    "VENDOR_NAME",
    "ASSND_TUN_ID",
    "RECV_WIN_SIZE",
    "CHALLENGE",
    "Q931_CC",
    "CHALLENGE_RESP",
    "ASSND_SESS_ID",
    "CALL_SER_NUM",
    "MINIMUM_BPS",
    "MAXIMUM_BPS",
    "BEARER_TYPE",
    "FRAMING_TYPE",
    "PACKET_PROC_DELAY",
    "CALLED_NUMBER",
    "CALLING_NUMBER",
    "SUB_ADDRESS",
    "TX_CONN_SPEED",
    "PHY_CHANNEL_ID",
    "INI_RECV_LCP",
    "LAST_SENT_LCP",
    "LAST_RECV_LCP",
    "PROXY_AUTH_TYPE",
    "PROXY_AUTH_NAME",
    "PROXY_AUTH_CHAL",
    "PROXY_AUTH_ID",
    "PROXY_AUTH_RESP",
    "CALL_ERRORS",
    "ACCM",
    "RANDOM_VECTOR",
    "PRIVATE_GRP_ID",
    "RX_CONN_SPEED",
    "SEQ_REQUIRED",
];

fn msg_name(t: u16) -> Option<&'static str> {
    Some(match t {
        1 => "SCCRQ",
        2 => "SCCRP",
        3 => "SCCCN",
        4 => "StopCCN",
        6 => "HELLO",
        7 => "OCRQ",
        8 => "OCRP",
        9 => "OCCN",
        10 => "ICRQ",
        11 => "ICRP",
        12 => "ICCN",
        14 => "CDN",
        15 => "WEN",
        16 => "SLI",
        _ => return None,
    })
}

fn avp_name(t: u16) -> String {
    match AVPS.get(t as usize) {
        Some(n) => n.to_string(),
        None if t == 46 => "PPP_DISCON_CC".to_string(),
        None => format!("AVP-#{t}"),
    }
}

const SHORT: &str = "AVP too short";

impl Printer<'_> {
    /// `l2tp_print`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn l2tp(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "l2tp";
        let flags = g2(p, 0)?;
        match flags & 0x000f {
            2 => out!(self, " l2tp:"),
            1 => {
                out!(self, " l2f:");
                return Ok(());
            }
            _ => {
                out!(self, " Unknown Version, neither L2F(1) nor L2TP(2)");
                return Ok(());
            }
        }
        out!(self, "[");
        for (bit, c) in [
            (0x8000, 'T'),
            (0x4000, 'L'),
            (0x0800, 'S'),
            (0x0200, 'O'),
            (0x0100, 'P'),
        ] {
            if flags & bit != 0 {
                self.out.push(c);
            }
        }
        out!(self, "]");
        let (is_ctl, has_len) = (flags & 0x8000 != 0, flags & 0x4000 != 0);
        let mut at = 2;
        let mut l2tp_len = 0;
        if has_len {
            l2tp_len = g2(p, at)?;
            at += 2;
        }
        out!(self, "({}/", g2(p, at)?);
        out!(self, "{})", g2(p, at + 2)?);
        at += 4;
        if flags & 0x0800 != 0 {
            out!(self, "Ns={},", g2(p, at)?);
            out!(self, "Nr={}", g2(p, at + 2)?);
            at += 4;
        }
        if flags & 0x0200 != 0 {
            let pad = g2(p, at)? as usize;
            need(p, at + 2, pad).map_err(|_| self.caught())?;
            at += 2 + pad;
        }
        let mut length = len as usize;
        if has_len {
            if length < l2tp_len as usize {
                out!(self, " Length {l2tp_len} larger than packet");
                return Ok(());
            }
            length = l2tp_len as usize;
        }
        if length < at {
            out!(self, " Length {length} smaller than header length");
            return Ok(());
        }
        if !is_ctl {
            out!(self, " {{");
            self.ppp(super::tail(p, at), (length - at) as u32)?;
            out!(self, "}}");
            return Ok(());
        }
        if !has_len {
            out!(self, " No length");
            return Ok(());
        }
        if length == at {
            out!(self, " ZLB");
        }
        while length > at {
            at += self.l2tp_avp(p, at, length - at)?;
        }
        Ok(())
    }

    /// `l2tp_avp_print`: the AVP at `at`, `left` bytes left in the message;
    /// its length.
    fn l2tp_avp(&mut self, p: &[u8], at: usize, left: usize) -> PResult<usize> {
        out!(self, " ");
        let hdr = g2(p, at)?;
        let len = (hdr & 0x03ff) as usize;
        if len < 6 || len > left {
            return Err(self.caught());
        }
        need(p, at, len).map_err(|_| self.caught())?;
        if hdr & 0x8000 != 0 {
            out!(self, "*");
        }
        let hidden = hdr & 0x4000 != 0;
        if hidden {
            out!(self, "?");
        }
        let vendor = g2(p, at + 2)?;
        let attr = g2(p, at + 4)?;
        let v = &p[at + 6..at + len];
        if vendor != 0 {
            out!(self, "VENDOR{vendor:04x}:ATTR{attr:04x}(");
            self.l2tp_octets(v);
            out!(self, ")");
            return Ok(len);
        }
        out!(self, "{}(", avp_name(attr));
        if hidden {
            out!(self, "???");
        } else {
            self.l2tp_avp_value(attr, v)?;
        }
        out!(self, ")");
        Ok(len)
    }

    fn l2tp_octets(&mut self, v: &[u8]) {
        for b in v {
            out!(self, "{b:02x}");
        }
    }

    fn l2tp_string(&mut self, v: &[u8]) {
        for &c in v {
            print_char(&mut self.out, c);
        }
    }

    /// Two bit letters of a capability or type AVP (`A` for bit 2, then
    /// `second` for bit 1).
    fn l2tp_bits(&mut self, v: &[u8], second: char) -> PResult {
        let x = g4(v, 0)?;
        if x & 2 != 0 {
            out!(self, "A");
        }
        if x & 1 != 0 {
            self.out.push(second);
        }
        Ok(())
    }

    /// Fields of four bytes after two reserved ones, each `name=` and the
    /// value in `%u` or `%08x`, until the AVP ends.
    fn l2tp_counters(&mut self, v: &[u8], names: &[&str], hex: bool) -> PResult {
        if v.len() < 2 {
            out!(self, "{SHORT}");
            return Ok(());
        }
        for (i, name) in names.iter().enumerate() {
            let at = 2 + 4 * i;
            if v.len() < at + 4 {
                out!(self, "{SHORT}");
                return Ok(());
            }
            let x = g4(v, at)?;
            if hex {
                out!(self, "{name}={x:08x} ");
            } else {
                out!(self, "{name}={x} ");
            }
        }
        Ok(())
    }

    fn l2tp_avp_value(&mut self, attr: u16, v: &[u8]) -> PResult {
        let n = v.len();
        // The shortest value each attribute's printer accepts.
        let min = match attr {
            0 | 1 | 2 | 6 | 9 | 10 | 14 | 29 | 32 => 2,
            12 => 3,
            3 | 4 | 15 | 16 | 17 | 18 | 19 | 24 | 25 | 38 => 4,
            46 => 5,
            5 => 8,
            13 => 16,
            _ => 0,
        };
        if n < min {
            out!(self, "{SHORT}");
            return Ok(());
        }
        match attr {
            0 => {
                let t = g2(v, 0)?;
                let s = super::name_or(msg_name(t), || format!("MSGTYPE-#{t}"));
                out!(self, "{s}");
            }
            1 => {
                out!(self, "{}", g2(v, 0)?);
                if n == 2 {
                    return Ok(());
                }
                if n < 4 {
                    out!(self, " {SHORT}");
                    return Ok(());
                }
                out!(self, "/{}", g2(v, 2)?);
                if n > 4 {
                    out!(self, " ");
                    self.l2tp_string(&v[4..]);
                }
            }
            2 => out!(self, "{}.{}", v[0], v[1]),
            3 | 19 => self.l2tp_bits(v, 'S')?,
            4 | 18 => self.l2tp_bits(v, 'D')?,
            5 => self.l2tp_octets(&v[..8]),
            6 | 9 | 10 | 14 => out!(self, "{}", g2(v, 0)?),
            7 | 8 | 21 | 22 | 23 | 30 | 37 => self.l2tp_string(v),
            11 | 26 | 27 | 28 | 31 | 33 | 36 => self.l2tp_octets(v),
            12 => {
                out!(self, "{}, {:02x}", g2(v, 0)?, v[2]);
                if n > 3 {
                    out!(self, " ");
                    self.l2tp_string(&v[3..]);
                }
            }
            13 => self.l2tp_octets(&v[..16]),
            15 | 16 | 17 | 24 | 25 | 38 => out!(self, "{}", g4(v, 0)?),
            20 => out!(self, "obsolete"),
            29 => {
                let t = g2(v, 0)?;
                let s = match t {
                    0 => "Reserved".to_string(),
                    1 => "Textual".to_string(),
                    2 => "CHAP".to_string(),
                    3 => "PAP".to_string(),
                    4 => "No Auth".to_string(),
                    5 => "MS-CHAPv1".to_string(),
                    _ => format!("AuthType-#{t}"),
                };
                out!(self, "{s}");
            }
            32 => out!(self, "{}", g2(v, 0)? & 0xff),
            34 => {
                let names = [
                    "CRCErr", "FrameErr", "HardOver", "BufOver", "Timeout", "AlignErr",
                ];
                self.l2tp_counters(v, &names, false)?
            }
            35 => self.l2tp_counters(v, &["send", "recv"], true)?,
            46 => {
                out!(self, "{:04x}, {:04x} ", g2(v, 0)?, g2(v, 2)?);
                let d = g1(v, 4)?;
                match d {
                    0 => out!(self, "global error"),
                    1 => out!(self, "at peer"),
                    2 => out!(self, "at local"),
                    _ => out!(self, "Direction-#{d}"),
                }
                if n > 5 {
                    out!(self, " ");
                    self.l2tp_string(&v[5..]);
                }
            }
            _ => {}
        }
        Ok(())
    }
}
