//! Zephyr notices (UDP ports 2103 and 2104), as tcpdump 4.99's
//! `zephyr_print` prints them: the NUL-terminated header fields, then the
//! kind, sender and what the class and opcode say.

use super::{g1, out, print_char, PResult, Printer};

/// tcpdump's `z_buf`: what `str_to_lower` and `z_triple` return is cut to
/// 255 bytes.
const ZBUF: usize = 255;

/// `parse_field`: the bytes before the next NUL within `len`, and the
/// cursor past it; `None` when `len` ends first.
fn field<'a>(cp: &'a [u8], at: &mut usize, len: &mut usize) -> PResult<Option<&'a [u8]>> {
    let start = *at;
    loop {
        if *len == 0 {
            return Ok(None);
        }
        if g1(cp, *at)? == 0 {
            break;
        }
        *at += 1;
        *len -= 1;
    }
    let s = &cp[start..*at];
    *at += 1;
    *len -= 1;
    Ok(Some(s))
}

/// `strtol(s, 0, 16)` as an `int`: blanks, a sign, an optional `0x`, hex
/// digits up to the first other byte.
fn strtol16(s: &[u8]) -> i32 {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    let neg = s.get(i) == Some(&b'-');
    if matches!(s.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    if s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit())
    {
        i += 2;
    }
    let mut v: i64 = 0;
    while let Some(d) = s.get(i).and_then(|c| (*c as char).to_digit(16)) {
        // strtol saturates at LONG_MAX; the int it is stored in keeps the
        // low 32 bits.
        v = v.saturating_mul(16).saturating_add(i64::from(d));
        i += 1;
    }
    (if neg { v.wrapping_neg() } else { v }) as i32
}

/// `str_to_lower`: ASCII lowercase, cut to the buffer.
fn lower(s: &[u8]) -> Vec<u8> {
    s.iter().take(ZBUF).map(u8::to_ascii_lowercase).collect()
}

/// `z_triple`: `<class,inst,recipient>`, `*` for no recipient, cut to the buffer.
fn triple(class: &[u8], inst: &[u8], recipient: &[u8]) -> Vec<u8> {
    let recipient: &[u8] = if recipient.is_empty() {
        b"*"
    } else {
        recipient
    };
    let mut v = b"<".to_vec();
    for (i, part) in [class, inst, recipient].iter().enumerate() {
        if i > 0 {
            v.push(b',');
        }
        v.extend_from_slice(part);
    }
    v.push(b'>');
    v.truncate(ZBUF);
    v
}

impl Printer<'_> {
    /// `ZEPHYR_PRINT`: `label`, then `s` as `fn_print_str` prints it.
    fn z_print(&mut self, label: &str, s: &[u8]) {
        self.out.push_str(label);
        for &c in s {
            print_char(&mut self.out, c);
        }
    }

    /// `zephyr_print` of `length` bytes of UDP payload.
    pub(super) fn zephyr(&mut self, cp: &[u8], length: u32) -> PResult {
        self.proto = "zephyr";
        let (mut at, mut len) = (0usize, length as usize);
        let Some(version) = field(cp, &mut at, &mut len)? else {
            out!(self, " (invalid)");
            return Ok(());
        };
        if !version.starts_with(b"ZEPH") {
            return Ok(());
        }
        // The sixteen fields after the version, all needed.
        let mut f: Vec<&[u8]> = Vec::with_capacity(16);
        for _ in 0..16 {
            match field(cp, &mut at, &mut len)? {
                Some(s) => f.push(s),
                None => {
                    out!(self, " (invalid)");
                    return Ok(());
                }
            }
        }
        let kind = strtol16(f[1]);
        let (class, inst, opcode, sender, recipient) = (f[7], f[8], f[9], f[10], f[11]);
        out!(self, " zephyr");
        if !version[4..].starts_with(b"0.2") {
            self.z_print(" v", &version[4..]);
            return Ok(());
        }
        const TYPES: [&str; 9] = [
            "unsafe",
            "unacked",
            "acked",
            "hm-ack",
            "hm-ctl",
            "serv-ack",
            "serv-nak",
            "client-ack",
            "stat",
        ];
        match usize::try_from(kind).ok().and_then(|k| TYPES.get(k)) {
            Some(t) => out!(self, " {t}"),
            None => out!(self, " type {kind}"),
        }
        if kind == 5 {
            if let Some(ack) = field(cp, &mut at, &mut len)? {
                if ack != b"SENT" {
                    self.z_print("/", &lower(ack));
                }
            }
        }
        if !sender.is_empty() {
            self.z_print(" ", sender);
        }
        match class {
            b"USER_LOCATE" => {
                match opcode {
                    b"USER_HIDE" => out!(self, " hide"),
                    b"USER_UNHIDE" => out!(self, " unhide"),
                    _ => self.z_print(" locate ", inst),
                }
                return Ok(());
            }
            b"ZEPHYR_ADMIN" => {
                self.z_print(" zephyr-admin ", &lower(opcode));
                return Ok(());
            }
            b"ZEPHYR_CTL" if self.zephyr_ctl(inst, opcode, kind, cp, &mut at, &mut len)? => {
                return Ok(());
            }
            b"HM_CTL" | b"WG_CTL" => {
                let label = if class == b"HM_CTL" {
                    " hm_ctl "
                } else {
                    " wg_ctl "
                };
                self.z_print(label, &lower(inst));
                self.z_print(" ", &lower(opcode));
                return Ok(());
            }
            b"HM_STAT" if inst == b"HMST_CLIENT" && opcode == b"GIMMESTATS" => {
                out!(self, " get-client-stats");
                return Ok(());
            }
            b"LOGIN" => match opcode {
                b"USER_FLUSH" => {
                    out!(self, " flush_locs");
                    return Ok(());
                }
                b"NONE" | b"OPSTAFF" | b"REALM-VISIBLE" | b"REALM-ANNOUNCED" | b"NET-VISIBLE"
                | b"NET-ANNOUNCED" => {
                    self.z_print(" set-exposure ", &lower(opcode));
                    return Ok(());
                }
                _ => {}
            },
            _ => {}
        }
        self.z_print(" to ", &triple(class, inst, recipient));
        if !opcode.is_empty() {
            self.z_print(" op ", opcode);
        }
        Ok(())
    }

    /// The ZEPHYR_CTL class: whether it printed the rest.
    fn zephyr_ctl(
        &mut self,
        inst: &[u8],
        opcode: &[u8],
        kind: i32,
        cp: &[u8],
        at: &mut usize,
        len: &mut usize,
    ) -> PResult<bool> {
        match inst {
            b"CLIENT" => {
                match opcode {
                    b"SUBSCRIBE" | b"SUBSCRIBE_NODEFS" | b"UNSUBSCRIBE" => {
                        let un = if opcode == b"SUBSCRIBE" { "" } else { "un" };
                        let nodefs = if opcode == b"SUBSCRIBE_NODEFS" {
                            "-nodefs"
                        } else {
                            ""
                        };
                        out!(self, " {un}sub{nodefs}");
                        if kind != 5 {
                            let c = field(cp, at, len)?;
                            let i = field(cp, at, len)?;
                            let r = field(cp, at, len)?;
                            if let (Some(c), Some(i), Some(r)) = (c, i, r) {
                                self.z_print(" ", &triple(c, i, r));
                            }
                        }
                    }
                    b"GIMME" => out!(self, " ret"),
                    b"GIMMEDEFS" => out!(self, " gimme-defs"),
                    b"CLEARSUB" => out!(self, " clear-subs"),
                    _ => self.z_print(" ", &lower(opcode)),
                }
                Ok(true)
            }
            b"HM" => {
                self.z_print(" ", &lower(opcode));
                Ok(true)
            }
            b"REALM" => {
                match opcode {
                    b"ADD_SUBSCRIBE" => out!(self, " realm add-subs"),
                    b"REQ_SUBSCRIBE" => out!(self, " realm req-subs"),
                    b"RLM_SUBSCRIBE" => out!(self, " realm rlm-sub"),
                    b"RLM_UNSUBSCRIBE" => out!(self, " realm rlm-unsub"),
                    _ => {}
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}
