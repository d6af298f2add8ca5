//! How each kind of argument is checked, and the value it becomes.

use super::types::{ArgKind, Value};

impl ArgKind {
    /// Checks `text` (the unquoted argument) and gives its value, or says what is
    /// wrong with it.
    pub fn check(&self, text: &str) -> Result<Value, String> {
        match *self {
            ArgKind::Interface => check_interface(text).map(|()| Value::Text(text.into())),
            ArgKind::Positive(max) => match text.parse::<u64>() {
                Ok(n) if (1..=max).contains(&n) => Ok(Value::Int(n)),
                _ => Err(format!(
                    "must be a whole number from 1 to {max}, found {text:?}"
                )),
            },
            ArgKind::Text => Ok(Value::Text(text.into())),
            ArgKind::NonEmpty if text.is_empty() => Err("must not be empty".into()),
            ArgKind::NonEmpty => Ok(Value::Text(text.into())),
            ArgKind::Bpf => check_bpf(text).map(Value::Text),
            ArgKind::Choice(words) => match words.iter().find(|w| w.eq_ignore_ascii_case(text)) {
                Some(w) => Ok(Value::Text((*w).into())),
                None => Err(format!(
                    "must be one of {}, found {text:?}",
                    words.join(", ")
                )),
            },
            ArgKind::AbsolutePath if text.starts_with('/') && !text.contains('\0') => {
                Ok(Value::Text(text.into()))
            }
            ArgKind::AbsolutePath => Err(format!("must be an absolute path, found {text:?}")),
        }
    }
}

fn check_interface(name: &str) -> Result<(), String> {
    // Linux's dev_valid_name: IFNAMSIZ is 16 with the terminating NUL.
    let bad = name.is_empty()
        || name.len() > 15
        || name == "."
        || name == ".."
        || name
            .chars()
            .any(|c| c == '/' || c == ':' || c.is_whitespace() || c.is_control());
    if bad {
        Err(format!(
            "must be an interface name (1 to 15 bytes, no '/', ':' or spaces), found {name:?}"
        ))
    } else {
        Ok(())
    }
}

/// The most instructions a classic BPF program may have (Linux's BPF_MAXINSNS).
pub const BPF_MAXINSNS: usize = 4096;

/// Checks classic BPF as `tcpdump -ddd` prints it (a count, then `code jt jf k`
/// per instruction, separated by commas or newlines) and gives its canonical
/// one-line form, `n,code jt jf k,…`. The program must run safely, as Linux's
/// `bpf_check_classic` demands: its count matches, every conditional jump lands
/// inside it, and its last instruction returns.
pub fn check_bpf(text: &str) -> Result<String, String> {
    let mut lines = text
        .split([',', '\n'])
        .map(str::trim)
        .filter(|l| !l.is_empty());
    let count: usize = match lines.next().map(str::parse) {
        Some(Ok(n)) if (1..=BPF_MAXINSNS).contains(&n) => n,
        _ => {
            return Err(format!(
                "must begin with its instruction count (1 to {BPF_MAXINSNS}), as tcpdump -ddd prints it"
            ))
        }
    };
    let mut out = count.to_string();
    let mut last_code = 0;
    let mut seen = 0;
    for (pc, line) in lines.enumerate() {
        if pc >= count {
            return Err(format!("has more instructions than its count of {count}"));
        }
        let (code, jt, jf, k) = bpf_insn(line).ok_or_else(|| {
            format!("instruction {pc} must be four numbers `code jt jf k`, found {line:?}")
        })?;
        // BPF_JMP with a condition (not BPF_JA) jumps by jt or jf.
        let conditional = code & 0x07 == 0x05 && code & 0xf0 != 0x00;
        if conditional && pc + 1 + jt.max(jf) as usize >= count {
            return Err(format!(
                "instruction {pc} jumps past the end of the program"
            ));
        }
        if code & 0x07 == 0x05 && code & 0xf0 == 0x00 && pc as u64 + 1 + k as u64 >= count as u64 {
            return Err(format!(
                "instruction {pc} jumps past the end of the program"
            ));
        }
        out.push_str(&format!(",{code} {jt} {jf} {k}"));
        last_code = code;
        seen = pc + 1;
    }
    if seen != count {
        return Err(format!("has {seen} instructions, not its count of {count}"));
    }
    if last_code & 0x07 != 0x06 {
        return Err("must end with a return instruction".into());
    }
    Ok(out)
}

fn bpf_insn(line: &str) -> Option<(u16, u8, u8, u32)> {
    let mut f = line.split_ascii_whitespace();
    let insn = (
        f.next()?.parse().ok()?,
        f.next()?.parse().ok()?,
        f.next()?.parse().ok()?,
        f.next()?.parse().ok()?,
    );
    f.next().is_none().then_some(insn)
}
