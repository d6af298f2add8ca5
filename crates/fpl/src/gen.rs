//! Random FPL programs from a byte string, for property tests and fuzzing: every
//! construct of the language, mostly well-formed, so that random inputs reach
//! the checker and the executors rather than stop at the parser. The same bytes
//! always give the same text, so a fuzzer's input replays; the later executors'
//! differential tests draw their programs here too. [`calling`] draws a program
//! with the filters it calls ([`crate::calls`]).

/// Reads choices from the bytes, then zeros.
struct Choices<'a> {
    bytes: &'a [u8],
    at: usize,
    /// The MBuf size the program being drawn is for.
    mbuf: usize,
    /// The filters it may call: name and MBuf window.
    filters: Vec<(String, usize)>,
}

impl<'a> Choices<'a> {
    fn new(bytes: &'a [u8]) -> Choices<'a> {
        Choices {
            bytes,
            at: 0,
            mbuf: 256,
            filters: Vec::new(),
        }
    }

    /// An `EXTERN(SUM8, …)` offset whose 8 bytes fit in MBuf.
    fn sum8_offset(&mut self) -> usize {
        usize::from(self.next((self.mbuf / 8).saturating_sub(2).min(30) as u8)) * 8
    }

    /// A call of one of `filters` whose window fits in MBuf, if there are some
    /// and the bytes (or `surely`) say so: mostly with regions that fit, one in eight with a
    /// window that may not.
    fn filter_call(&mut self, surely: bool) -> Option<String> {
        let fitting: Vec<(String, usize)> = self
            .filters
            .iter()
            .filter(|f| f.1 <= self.mbuf)
            .cloned()
            .collect();
        if fitting.is_empty() || (!surely && self.next(2) == 0) {
            return None;
        }
        let (name, window) = fitting[usize::from(self.next(fitting.len() as u8))].clone();
        let room = if self.next(8) == 0 {
            self.mbuf / 8 + 2
        } else {
            self.mbuf.saturating_sub(window) / 8 + 1
        };
        let input = usize::from(self.next(room.min(255) as u8)) * 8;
        let output = usize::from(self.next((self.mbuf / 8).min(255) as u8)) * 8;
        Some(format!("EXTERN({name}, {input}, {output})"))
    }

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
    body(&mut Choices::new(bytes))
}

/// The MBuf size a [`calling`] program is drawn for.
pub const CALLER_MBUF: usize = 512;

/// A program that calls filters, drawn from bytes, with its filters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Calling {
    /// The filters, callees first: name (`F0`, `F1`, …), program text and
    /// MBuf size (the window a call gives it), each calling only earlier
    /// ones and `SUM8`.
    pub filters: Vec<(String, String, usize)>,
    /// The caller, for an MBuf of [`CALLER_MBUF`] bytes.
    pub program: String,
}

impl Calling {
    /// The filters as [`crate::define`] takes them.
    pub fn definitions(&self) -> Vec<crate::Definition<'_>> {
        self.filters
            .iter()
            .map(|(name, text, mbuf_len)| crate::Definition {
                name,
                text,
                mbuf_len: *mbuf_len,
            })
            .collect()
    }
}

/// One to three filters and a program calling them, drawn from `bytes` as
/// [`program`] draws one, with `EXTERN` of a filter among the calls.
pub fn calling(bytes: &[u8]) -> Calling {
    let mut c = Choices::new(bytes);
    let mut filters = Vec::new();
    for i in 0..1 + c.next(3) {
        let window = [64, 256][usize::from(c.next(2))];
        c.mbuf = window;
        let text = body(&mut c);
        let name = format!("F{i}");
        c.filters.push((name.clone(), window));
        filters.push((name, text, window));
    }
    c.mbuf = CALLER_MBUF;
    // The caller calls a filter first, then whatever the bytes say.
    let first = c
        .filter_call(true)
        .map_or_else(String::new, |call| format!("R[15] = {call};\n"));
    let program = first + &body(&mut c);
    Calling { filters, program }
}

fn body(c: &mut Choices<'_>) -> String {
    let mut out = String::new();
    let n = 1 + c.next(6);
    for _ in 0..n {
        stmt(c, &mut out, 0, false);
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
        7 => match c.filter_call(false) {
            Some(call) => out.push_str(&format!("{call};\n")),
            None => out.push_str("EXTERN(SUM8, 8, 16);\n"),
        },
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
        11 => match c.filter_call(false) {
            Some(call) => out.push_str(&call),
            None => {
                let (input, output) = (c.sum8_offset(), c.sum8_offset());
                out.push_str(&format!("EXTERN(SUM8, {input}, {output})"));
            }
        },
        12 => out.push_str(&format!(
            "R[{}].U{}[{}]",
            c.next(16),
            [8, 16, 32][usize::from(c.next(3))],
            c.next(2)
        )),
        _ => out.push_str(&format!("'{}'", char::from(b'A' + c.next(26)))),
    }
}
