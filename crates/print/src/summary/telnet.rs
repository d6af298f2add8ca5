//! Telnet's commands and option negotiations at the start of a TCP
//! segment on port 23, as tcpdump 4.99's `telnet_print` prints them
//! (` [telnet DO ECHO, SB TERMINAL TYPE SEND SE]`).

use super::{g1, out, PResult, Printer};

const IAC: u8 = 255;
const SB: u8 = 250;
const SE: u8 = 240;

/// `telcmds`, from 236 (EOF) to 255 (IAC).
const TELCMDS: [&str; 20] = [
    "EOF", "SUSP", "ABORT", "EOR", "SE", "NOP", "DMARK", "BRK", "IP", "AO", "AYT", "EC", "EL",
    "GA", "SB", "WILL", "WONT", "DO", "DONT", "IAC",
];

/// `telopts`.
const TELOPTS: [&str; 40] = [
    "BINARY",
    "ECHO",
    "RCP",
    "SUPPRESS GO AHEAD",
    "NAME",
    "STATUS",
    "TIMING MARK",
    "RCTE",
    "NAOL",
    "NAOP",
    "NAOCRD",
    "NAOHTS",
    "NAOHTD",
    "NAOFFD",
    "NAOVTS",
    "NAOVTD",
    "NAOLFD",
    "EXTEND ASCII",
    "LOGOUT",
    "BYTE MACRO",
    "DATA ENTRY TERMINAL",
    "SUPDUP",
    "SUPDUP OUTPUT",
    "SEND LOCATION",
    "TERMINAL TYPE",
    "END OF RECORD",
    "TACACS UID",
    "OUTPUT MARKING",
    "TTYLOC",
    "3270 REGIME",
    "X.3 PAD",
    "NAWS",
    "TSPEED",
    "LFLOW",
    "LINEMODE",
    "XDISPLOC",
    "OLD-ENVIRON",
    "AUTHENTICATION",
    "ENCRYPT",
    "NEW-ENVIRON",
];

const CMDS: &[Option<&str>] = &[Some("IS"), Some("SEND"), Some("INFO")];
const AUTHCMD: &[Option<&str>] = &[Some("IS"), Some("SEND"), Some("REPLY"), Some("NAME")];
const AUTHTYPE: &[Option<&str>] = &[
    Some("NULL"),
    Some("KERBEROS_V4"),
    Some("KERBEROS_V5"),
    Some("SPX"),
    Some("MINK"),
    Some("SRP"),
    Some("RSA"),
    Some("SSL"),
    None,
    None,
    Some("LOKI"),
    Some("SSA"),
    Some("KEA_SJ"),
    Some("KEA_SJ_INTEG"),
    Some("DSS"),
    Some("NTLM"),
];
const ENCCMD: &[Option<&str>] = &[
    Some("IS"),
    Some("SUPPORT"),
    Some("REPLY"),
    Some("START"),
    Some("END"),
    Some("REQUEST-START"),
    Some("REQUEST-END"),
    Some("END_KEYID"),
    Some("DEC_KEYID"),
];
const ENCTYPE: &[Option<&str>] = &[
    Some("NULL"),
    Some("DES_CFB64"),
    Some("DES_OFB64"),
    Some("DES3_CFB64"),
    Some("DES3_OFB64"),
    None,
    Some("CAST5_40_CFB64"),
    Some("CAST5_40_OFB64"),
    Some("CAST128_CFB64"),
    Some("CAST128_OFB64"),
];

/// C's `%#x`: `0` for zero, else `0x` and hex.
fn alt_hex(x: u8) -> String {
    if x == 0 {
        "0".to_string()
    } else {
        format!("{x:#x}")
    }
}

/// `STR_OR_ID`.
fn str_or_id(x: u8, tab: &[Option<&str>]) -> String {
    match tab.get(usize::from(x)).copied().flatten() {
        Some(s) => s.to_string(),
        None => alt_hex(x),
    }
}

impl Printer<'_> {
    /// `telnet_print`: the commands at the start of `length` bytes of `sp`.
    pub(super) fn telnet(&mut self, sp: &[u8], length: u32) -> PResult {
        self.proto = "telnet";
        let (mut at, mut length) = (0usize, length as usize);
        let mut first = true;
        // `-X -vvv`: each command's bytes in hex, then the command, on lines
        // of their own.
        let hex = self.opts.hex_ascii && self.opts.verbose > 2;
        while length > 0 && g1(sp, at)? == IAC {
            // Measured first without printing, as tcpdump does.
            let Some(l) = self.telnet_parse(sp, at, length, false)? else {
                break;
            };
            if hex {
                if first {
                    out!(self, "\nTelnet:");
                }
                // The parse read these bytes, so they were captured.
                let bytes = sp.get(at..at + l).unwrap_or_default();
                crate::dump::hex_print_with_offset(&mut self.out, "\n", bytes, at);
                if l > 8 {
                    out!(self, "\n\t\t\t\t");
                } else {
                    out!(self, "{:w$}\t", "", w = (8 - l) * 3);
                }
            } else {
                out!(self, "{}", if first { " [telnet " } else { ", " });
            }
            self.telnet_parse(sp, at, length, true)?;
            first = false;
            at += l;
            length = length.saturating_sub(l);
        }
        if !first {
            out!(self, "{}", if hex { "\n" } else { "]" });
        }
        Ok(())
    }

    /// `telnet_parse` of the command at `start`: its length, or `None`
    /// (tcpdump's `pktend`); prints it when `print`.
    fn telnet_parse(
        &mut self,
        b: &[u8],
        start: usize,
        mut length: usize,
        print: bool,
    ) -> PResult<Option<usize>> {
        let mut sp = start;
        // FETCH: a byte within `length`, else the end.
        macro_rules! fetch {
            () => {{
                if length < 1 {
                    return Ok(None);
                }
                let c = g1(b, sp)?;
                sp += 1;
                length -= 1;
                c
            }};
        }
        if fetch!() != IAC {
            return Ok(None);
        }
        let c = fetch!();
        if c == IAC {
            if print {
                out!(self, "IAC IAC");
            }
            return Ok(Some(sp - start));
        }
        if c < 236 {
            return Ok(None);
        }
        let name = TELCMDS[usize::from(c - 236)];
        if !matches!(c, 251..=254 | SB) {
            if print {
                out!(self, "{name}");
            }
            return Ok(Some(sp - start));
        }
        let x = fetch!();
        if print {
            match TELOPTS.get(usize::from(x)) {
                Some(opt) => out!(self, "{name} {opt}"),
                None => out!(self, "{name} {}", alt_hex(x)),
            }
        }
        if c != SB {
            return Ok(Some(sp - start));
        }
        // IAC SB ... IAC SE: find the end within `length`.
        let mut p = sp;
        while length > p + 1 - sp {
            if g1(b, p)? == IAC && g1(b, p + 1)? == SE {
                break;
            }
            p += 1;
        }
        if g1(b, p)? != IAC {
            return Ok(None);
        }
        let tabs: &[&[Option<&str>]] = match x {
            37 => &[AUTHCMD, AUTHTYPE],
            38 => &[ENCCMD, ENCTYPE],
            _ => &[CMDS],
        };
        for tab in tabs {
            if p <= sp {
                break;
            }
            let c = fetch!();
            if print {
                out!(self, " {}", str_or_id(c, tab));
            }
        }
        while p > sp {
            let x = fetch!();
            if print {
                out!(self, " {}", alt_hex(x));
            }
        }
        if print {
            out!(self, " SE");
        }
        sp += 2;
        Ok(Some(sp - start))
    }
}
