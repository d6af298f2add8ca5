//! The lexer: FPL text to tokens with spans. Names keep their spelling (keywords
//! and macros are matched without regard to case, external function names with
//! it); numbers are decimal, `0x` hexadecimal, dotted IPv4 addresses
//! (`192.168.1.3`) or character literals (`'A'`); comments are `//` to the end of
//! the line and `/* … */`.

use crate::error::{Error, ErrorKind, Span};

/// One token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A number, as its 64-bit pattern.
    Int(i64),
    /// A name: keyword, macro, constant or external function.
    Ident(String),
    /// A quoted string (an external function's name, as Figure 7 writes it).
    Str(String),
    /// Punctuation and operators, as written (`"("`, `"<<="`, …).
    Punct(&'static str),
    /// The end of the text.
    Eof,
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) span: Span,
}

/// Longest first, so that `<<=` is not read as `<<` then `=`.
const PUNCT: [&str; 37] = [
    "<<=", ">>=", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "==", "!=", "<=",
    ">=", "&&", "||", "<<", ">>", "(", ")", "[", "]", ",", ";", ".", "+", "-", "*", "/", "%", "=",
    "<", ">", "!", "&",
];
/// Single characters not in [`PUNCT`] (kept apart so the array's size stays readable).
const PUNCT1: [&str; 3] = ["|", "^", "~"];

/// The tokens of `text`, ending with [`Tok::Eof`].
pub(crate) fn lex(text: &str) -> Result<Vec<Token>, Error> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
        } else if text[i..].starts_with("/*") {
            match text[i + 2..].find("*/") {
                Some(n) => i += n + 4,
                None => return Err(syntax("unterminated comment", i, i + 2, text)),
            }
        } else if c.is_ascii_digit() {
            let (tok, end) = number(text, i)?;
            out.push(Token {
                tok,
                span: Span::new(i, end),
            });
            i = end;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let end = i + text[i..]
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(text.len() - i);
            out.push(Token {
                tok: Tok::Ident(text[i..end].to_string()),
                span: Span::new(i, end),
            });
            i = end;
        } else if c == b'"' {
            let Some(n) = text[i + 1..]
                .find(['"', '\n'])
                .filter(|&n| bytes[i + 1 + n] == b'"')
            else {
                return Err(syntax("unterminated string", i, i + 1, text));
            };
            out.push(Token {
                tok: Tok::Str(text[i + 1..i + 1 + n].to_string()),
                span: Span::new(i, i + n + 2),
            });
            i += n + 2;
        } else if c == b'\'' {
            // One printable ASCII character between quotes.
            if bytes.len() < i + 3
                || bytes[i + 2] != b'\''
                || !bytes[i + 1].is_ascii_graphic() && bytes[i + 1] != b' '
            {
                return Err(syntax(
                    "a character literal is one ASCII character in quotes, as 'A'",
                    i,
                    i + 1,
                    text,
                ));
            }
            out.push(Token {
                tok: Tok::Int(i64::from(bytes[i + 1])),
                span: Span::new(i, i + 3),
            });
            i += 3;
        } else if let Some(p) = PUNCT
            .iter()
            .chain(PUNCT1.iter())
            .find(|p| text[i..].starts_with(**p))
        {
            out.push(Token {
                tok: Tok::Punct(p),
                span: Span::new(i, i + p.len()),
            });
            i += p.len();
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err(syntax(
                format!("unexpected character `{ch}`"),
                i,
                i + ch.len_utf8(),
                text,
            ));
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        span: Span::new(text.len(), text.len()),
    });
    Ok(out)
}

fn syntax(message: impl Into<String>, start: usize, end: usize, text: &str) -> Error {
    Error::new(ErrorKind::Syntax, message, Span::new(start, end), text)
}

/// A number starting at `start`: its token and end.
fn number(text: &str, start: usize) -> Result<(Tok, usize), Error> {
    let word_end = start
        + text[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(text.len() - start);
    let word = &text[start..word_end];
    let bad = |what: &str| syntax(format!("{what} `{word}`"), start, word_end, text);
    if word.contains('.') {
        // Only an IPv4 address has dots inside a number.
        let parts: Vec<&str> = word.split('.').collect();
        let octets: Option<Vec<u8>> = parts.iter().map(|p| p.parse::<u8>().ok()).collect();
        return match octets {
            Some(o)
                if o.len() == 4 && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit())) =>
            {
                Ok((
                    Tok::Int(i64::from(u32::from_be_bytes([o[0], o[1], o[2], o[3]]))),
                    word_end,
                ))
            }
            _ => Err(bad("bad IPv4 address")),
        };
    }
    let (digits, radix) = match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (word, 10),
    };
    match u64::from_str_radix(digits, radix) {
        // Numbers are 64-bit patterns: 0xffffffffffffffff is -1.
        Ok(v) => Ok((Tok::Int(v as i64), word_end)),
        Err(_) if !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix)) => {
            Err(bad("number does not fit in 64 bits:"))
        }
        Err(_) => Err(bad("bad number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn numbers_and_operators() {
        assert_eq!(
            toks("R[0]<<=0x10; 192.168.1.3 'A'"),
            vec![
                Tok::Ident("R".into()),
                Tok::Punct("["),
                Tok::Int(0),
                Tok::Punct("]"),
                Tok::Punct("<<="),
                Tok::Int(16),
                Tok::Punct(";"),
                Tok::Int(0xc0a8_0103),
                Tok::Int(65),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn comments_and_errors() {
        assert_eq!(toks("// x\n/* y */ 1"), vec![Tok::Int(1), Tok::Eof]);
        assert!(lex("1.2.3").is_err());
        assert!(lex("99999999999999999999").is_err());
        assert!(lex("\"abc").is_err());
        assert!(lex("/* open").is_err());
        assert!(lex("@").is_err());
        assert!(lex("é").is_err());
    }
}
