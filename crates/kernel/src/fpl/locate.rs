//! Where a call of an external function is in the program's text, for the
//! refusal's line and column: the checked IR keeps no spans, and the text is
//! what the user wrote. A small scanner that skips comments, finds the keyword
//! `EXTERN` (any case, as the lexer matches keywords) and reads the name after
//! `(`, bare or quoted.

/// The 1-based line and column of the first `EXTERN` call of `name` in
/// `source`.
pub(super) fn first_extern(source: &str, name: &str) -> Option<(usize, usize)> {
    let b = source.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            i += b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .unwrap_or(b.len() - i);
        } else if b[i..].starts_with(b"/*") {
            i += b[i + 2..]
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(b.len() - i, |p| p + 4);
        } else if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let end = b[i..]
                .iter()
                .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                .map_or(b.len(), |p| i + p);
            if source[i..end].eq_ignore_ascii_case("EXTERN") && called(&source[end..]) == Some(name)
            {
                return Some(line_column(source, i));
            }
            i = end;
        } else {
            i += 1;
        }
    }
    None
}

/// The function named after `EXTERN`: `( name` or `( "name"`.
fn called(rest: &str) -> Option<&str> {
    let rest = rest.trim_start().strip_prefix('(')?.trim_start();
    let (rest, quote) = match rest.strip_prefix('"') {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let end = if quote {
        rest.find('"')?
    } else {
        rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len())
    };
    Some(&rest[..end])
}

fn line_column(source: &str, at: usize) -> (usize, usize) {
    let before = &source[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rfind('\n').map_or(at, |nl| at - nl - 1) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::first_extern;

    #[test]
    fn finds_the_call_past_comments_and_in_any_case() {
        let src =
            "// EXTERN(F, 0, 0)\n/* EXTERN(F,0,0) */ R[0] = 1;\n  R[1] = extern(\"F\", 0, 8);";
        assert_eq!(first_extern(src, "F"), Some((3, 10)));
        assert_eq!(first_extern(src, "G"), None);
        assert_eq!(first_extern("EXTERN(SUM8,0,8)", "SUM8"), Some((1, 1)));
    }
}
