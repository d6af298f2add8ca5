//! Random FPL programs from a byte string, for property tests and fuzzing: every
//! construct of the language, mostly well-formed, so that random inputs reach
//! the checker and the executors rather than stop at the parser. The same bytes
//! always give the same text, so a fuzzer's input replays; the later executors'
//! differential tests draw their programs here too.

/// Reads choices from the bytes, then zeros.
struct Choices<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Choices<'_> {
    fn next(&mut self, n: u8) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        if n == 0 {
            0
        } else {
            b % n
        }
    }
}

const NAMES: [&str; 12] = [
    "PKT.IP_PROTO",
    "PKT.TCP_DPORT",
    "IP_SRC",
    "ETH_TYPE",
    "PKT.UDP_DPORT",
    "IP_HLEN",
    "PROTO_TCP",
    "TRUE",
    "TCP_PAYLOAD",
    "PKT.IP_FRAG",
    "L4_OFF",
    "PROTO_UDP",
];
const BINOPS: [&str; 18] = [
    "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", "<=", ">", ">=", "&&",
    "||",
];
const ASSIGNS: [&str; 11] = [
    "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=",
];

/// A program drawn from `bytes`, for an MBuf of at least 256 bytes and a
/// registry holding [`crate::externs::sum8`].
pub fn program(bytes: &[u8]) -> String {
    let mut c = Choices { bytes, at: 0 };
    let mut out = String::new();
    let n = 1 + c.next(6);
    for _ in 0..n {
        stmt(&mut c, &mut out, 0, false);
    }
    out
}

fn stmt(c: &mut Choices<'_>, out: &mut String, depth: u32, in_loop: bool) {
    let pick = if depth > 2 { c.next(3) } else { c.next(9) };
    match pick {
        0 | 1 => {
            place(c, out, depth);
            out.push_str(&format!(" {} ", ASSIGNS[usize::from(c.next(11))]));
            expr(c, out, depth);
            out.push_str(";\n");
        }
        2 => {
            place(c, out, depth);
            out.push_str(if c.next(2) == 0 { "++;\n" } else { "--;\n" });
        }
        3 | 4 => {
            out.push_str("IF (");
            expr(c, out, depth);
            out.push_str(") THEN\n");
            stmt(c, out, depth + 1, in_loop);
            if c.next(2) == 0 {
                out.push_str("ELSE\n");
                stmt(c, out, depth + 1, in_loop);
            }
            out.push_str("FI\n");
        }
        5 | 6 => {
            let r = c.next(16);
            let (from, to) = (c.next(4), c.next(40));
            let test = if c.next(3) == 0 {
                format!("R[{r}] < R[{}]", c.next(16))
            } else {
                format!("R[{r}] < {to}")
            };
            out.push_str(&format!("FOR (R[{r}] = {from}; {test}; R[{r}]++)\n"));
            stmt(c, out, depth + 1, true);
            stmt(c, out, depth + 1, true);
            out.push_str("ROF\n");
        }
        7 if in_loop => out.push_str("BREAK;\n"),
        7 => out.push_str("EXTERN(SUM8, 8, 16);\n"),
        _ => {
            out.push_str("RETURN ");
            expr(c, out, depth);
            out.push_str(";\n");
        }
    }
}

fn place(c: &mut Choices<'_>, out: &mut String, depth: u32) {
    if c.next(3) == 0 {
        out.push_str("MEM[");
        expr(c, out, depth + 1);
        out.push(']');
    } else {
        out.push_str(&format!("R[{}]", c.next(16)));
    }
}

fn expr(c: &mut Choices<'_>, out: &mut String, depth: u32) {
    let pick = if depth > 3 { c.next(4) } else { c.next(14) };
    match pick {
        0 => out.push_str(&format!("{}", c.next(255))),
        1 => out.push_str(&format!("R[{}]", c.next(16))),
        2 => out.push_str(NAMES[usize::from(c.next(12))]),
        3 => out.push_str(&format!(
            "0x{:x}",
            u32::from_le_bytes([c.next(255), c.next(255), c.next(255), c.next(255)])
        )),
        4..=6 => {
            out.push('(');
            expr(c, out, depth + 1);
            out.push_str(&format!(" {} ", BINOPS[usize::from(c.next(18))]));
            expr(c, out, depth + 1);
            out.push(')');
        }
        7 => {
            out.push_str(["PKT.B[", "PKT.W[", "PKT.DW["][usize::from(c.next(3))]);
            expr(c, out, depth + 1);
            out.push(']');
            if c.next(3) == 0 {
                let bits = [1, 2, 4, 8][usize::from(c.next(4))];
                let sign = if c.next(2) == 0 { 'U' } else { 'S' };
                out.push_str(&format!(".{sign}{bits}[{}]", c.next(3)));
            }
        }
        8 => {
            out.push_str("MEM[");
            expr(c, out, depth + 1);
            out.push(']');
        }
        9 => {
            out.push_str(["!", "~", "-"][usize::from(c.next(3))]);
            expr(c, out, depth + 1);
        }
        10 => {
            out.push_str("HASH(");
            expr(c, out, depth + 1);
            out.push_str(&format!(
                ", {}, {})",
                c.next(20),
                1 + u32::from(c.next(255))
            ));
        }
        11 => out.push_str(&format!(
            "EXTERN(SUM8, {}, {})",
            c.next(30) * 8,
            c.next(30) * 8
        )),
        12 => out.push_str(&format!(
            "R[{}].U{}[{}]",
            c.next(16),
            [8, 16, 32][usize::from(c.next(3))],
            c.next(2)
        )),
        _ => out.push_str(&format!("'{}'", char::from(b'A' + c.next(26)))),
    }
}
