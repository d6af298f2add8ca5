//! Pattern lists as the administrator writes them for `aho_corasick:SET` and
//! `memmem:NAME`: one pattern a line, so a daemon can take a set from a file
//! (`--patterns SET=FILE`) as easily as a graph takes one from its element's
//! arguments.
//!
//! A line is a pattern after `\` escapes: `\xHH` a byte, `\\` a backslash,
//! `\n`, `\r`, `\t`, `\0`, `\s` a space (so a pattern may begin or end with
//! one), `\#` a `#`. Blank lines and lines whose first non-blank byte is `#` are
//! skipped; white space around a line is dropped. Every refusal names its line.

use crate::Error;

/// The most patterns one set may hold.
pub const MAX_PATTERNS: usize = 65_536;
/// The longest pattern, in bytes.
pub const MAX_PATTERN_LEN: usize = 4_096;

/// The patterns of a list, in order.
pub fn parse(text: &str) -> Result<Vec<Vec<u8>>, Error> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let p = unescape(line).map_err(|why| Error::Patterns {
            line: n + 1,
            message: why,
        })?;
        out.push(p);
    }
    check(&out)?;
    Ok(out)
}

/// Refuses an empty set, an empty pattern, or one past the limits.
pub(crate) fn check<P: AsRef<[u8]>>(patterns: &[P]) -> Result<(), Error> {
    let fail = |message: String| Err(Error::Patterns { line: 0, message });
    if patterns.is_empty() {
        return fail("a pattern set needs at least one pattern".into());
    }
    if patterns.len() > MAX_PATTERNS {
        return fail(format!(
            "{} patterns, more than the limit of {MAX_PATTERNS}",
            patterns.len()
        ));
    }
    for (i, p) in patterns.iter().enumerate() {
        let len = p.as_ref().len();
        if len == 0 {
            return fail(format!("pattern {} is empty", i + 1));
        }
        if len > MAX_PATTERN_LEN {
            return fail(format!(
                "pattern {} is {len} bytes, longer than the limit of {MAX_PATTERN_LEN}",
                i + 1
            ));
        }
    }
    Ok(())
}

fn unescape(line: &str) -> Result<Vec<u8>, String> {
    let b = line.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let esc = *b.get(i + 1).ok_or("a `\\` ends the line")?;
        let byte = match esc {
            b'\\' => b'\\',
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'0' => 0,
            b's' => b' ',
            b'#' => b'#',
            b'x' => {
                let hex = b.get(i + 2..i + 4).ok_or("`\\x` needs two hex digits")?;
                let hex = std::str::from_utf8(hex).map_err(|_| "`\\x` needs two hex digits")?;
                let v = u8::from_str_radix(hex, 16)
                    .map_err(|_| format!("`\\x{hex}` is not two hex digits"))?;
                i += 2;
                v
            }
            other => return Err(format!("unknown escape `\\{}`", other as char)),
        };
        out.push(byte);
        i += 2;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        let text = "# worms\n\n  GET /default.ida?NNNN  \n\\x90\\x90\\xff\n\\sleading\\s\n\\#not a comment\n";
        let p = parse(text).unwrap();
        assert_eq!(
            p,
            [
                b"GET /default.ida?NNNN".to_vec(),
                vec![0x90, 0x90, 0xff],
                b" leading ".to_vec(),
                b"#not a comment".to_vec()
            ]
        );
    }

    #[test]
    fn refusals_name_the_line() {
        let e = parse("ok\n\nbad\\q\n").unwrap_err().to_string();
        assert!(
            e.contains("line 3") && e.contains("unknown escape `\\q`"),
            "{e}"
        );
        let e = parse("\\x4").unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("two hex digits"), "{e}");
        let e = parse("\\xzz").unwrap_err().to_string();
        assert!(e.contains("`\\xzz`"), "{e}");
        assert!(parse("# only a comment\n").is_err());
        assert!(parse("a\\").is_err());
    }
}
