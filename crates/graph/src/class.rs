//! The filter classes, in one table ([`CLASSES`]): each entry is a class's name,
//! its role, the arguments it takes and how each is checked, the MBuf sizes it
//! allows and whether only root may use it. Adding a class is adding an entry.
//!
//! The checks here are the ones that need nothing but the text: a class whose
//! argument is a program in another language (`pcap`, `fpl`) only checks that it
//! is a string, and the daemon compiles it when it instantiates the filter.

use std::fmt;

/// The largest MBuf any class may ask for: 1 MiB.
pub const MAX_MBUF: u32 = 1 << 20;

/// A filter class.
#[derive(Debug)]
pub struct Class {
    /// Its name, lower case, as written in a flow.
    pub name: &'static str,
    /// Other names accepted for it (the seeds write `FPL-2` and `BPF`). Names are
    /// matched without regard to case.
    pub aliases: &'static [&'static str],
    /// What kind of element it is.
    pub role: Role,
    /// One line on what it does.
    pub summary: &'static str,
    /// Its arguments in order.
    pub params: &'static [Param],
    /// Whether the last parameter may repeat (up to
    /// [`Limits::max_args`](crate::Limits::max_args) arguments in all).
    pub variadic: bool,
    /// The MBuf sizes it allows.
    pub mbuf: Mbuf,
    /// Whether only root may instantiate it (`native`, as FFPF allowed C for root).
    pub root_only: bool,
}

/// What kind of element a class makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A packet source: it takes no input, so it may only begin a flow.
    Source,
    /// A filter: it passes on a subset of its input and may keep state in MBuf.
    Filter,
    /// An external function that FPL may call with `EXTERN`, also usable as a
    /// filter of its own in a graph.
    External,
}

/// One argument of a class.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// What the argument is, for messages and documentation.
    pub name: &'static str,
    /// How it is checked.
    pub kind: ArgKind,
    /// Whether it may be left out (only trailing parameters may be).
    pub optional: bool,
}

/// How an argument is checked and what value it becomes.
#[derive(Clone, Copy, Debug)]
pub enum ArgKind {
    /// A network interface name as Linux accepts one (1 to 15 bytes, not `.` or
    /// `..`, no `/`, `:` or white space).
    Interface,
    /// A whole number from 1 to the bound.
    Positive(u64),
    /// Any string, the empty one included (pcap's empty filter passes all).
    Text,
    /// A non-empty string (a program, a pattern).
    NonEmpty,
    /// Classic BPF as `tcpdump -ddd` prints it, its lines separated by commas or
    /// newlines; checked to be a program that runs safely (see [`check_bpf`]).
    Bpf,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// An absolute path.
    AbsolutePath,
}

/// The MBuf sizes a class allows.
#[derive(Clone, Copy, Debug)]
pub enum Mbuf {
    /// From `min` to `max` bytes, `default` when the flow gives none.
    Range {
        /// Used when the element gives no size.
        default: u32,
        /// Smallest allowed.
        min: u32,
        /// Largest allowed.
        max: u32,
    },
    /// At least `base + per * n` bytes, where `n` is the first argument (a table of
    /// `n` entries), up to [`MAX_MBUF`]; that least size by default.
    PerEntry {
        /// Bytes of header.
        base: u32,
        /// Bytes per entry.
        per: u32,
    },
}

/// A checked argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// A number.
    Int(u64),
    /// A string, in its canonical form (BPF programs are rewritten to one line).
    Text(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Text(s) => write!(f, "{s:?}"),
        }
    }
}

const fn param(name: &'static str, kind: ArgKind) -> Param {
    Param {
        name,
        kind,
        optional: false,
    }
}

const fn range(default: u32, min: u32, max: u32) -> Mbuf {
    Mbuf::Range { default, min, max }
}

const NONE: Mbuf = range(0, 0, 0);
const PROTOCOLS: &[&str] = &["ftp", "sip", "rtsp"];

/// Every filter class, in the order `docs/graphs.md` lists them.
pub static CLASSES: &[Class] = &[
    Class {
        name: "device",
        aliases: &[],
        role: Role::Source,
        summary: "the packets of a network interface (`any`: all of them)",
        params: &[param("interface", ArgKind::Interface)],
        variadic: false,
        mbuf: NONE,
        root_only: false,
    },
    Class {
        name: "pcap",
        aliases: &[],
        role: Role::Filter,
        summary: "a tcpdump filter expression, compiled by netsift's pcap compiler",
        params: &[param("filter", ArgKind::Text)],
        variadic: false,
        mbuf: NONE,
        root_only: false,
    },
    Class {
        name: "bpf",
        aliases: &[],
        role: Role::Filter,
        summary: "classic BPF as `tcpdump -ddd` prints it, run safely",
        params: &[param("program", ArgKind::Bpf)],
        variadic: false,
        mbuf: NONE,
        root_only: false,
    },
    Class {
        name: "fpl",
        aliases: &["fpl-2", "fpl2"],
        role: Role::Filter,
        summary: "an FPL-2 program; MEM[] is its MBuf",
        params: &[param("program", ArgKind::NonEmpty)],
        variadic: false,
        mbuf: range(0, 0, MAX_MBUF),
        root_only: false,
    },
    Class {
        name: "sampler",
        aliases: &[],
        role: Role::Filter,
        summary: "passes one packet in `rate`, counting in a 4-byte MBuf",
        params: &[param("rate", ArgKind::Positive(u32::MAX as u64))],
        variadic: false,
        mbuf: range(4, 4, 4),
        root_only: false,
    },
    Class {
        name: "packetcount",
        aliases: &[],
        role: Role::Filter,
        summary: "counts packets in an 8-byte MBuf and passes none on",
        params: &[],
        variadic: false,
        mbuf: range(8, 8, 8),
        root_only: false,
    },
    Class {
        name: "bytecount",
        aliases: &[],
        role: Role::Filter,
        summary: "counts bytes in an 8-byte MBuf and passes none on",
        params: &[],
        variadic: false,
        mbuf: range(8, 8, 8),
        root_only: false,
    },
    Class {
        name: "follow",
        aliases: &[],
        role: Role::Filter,
        summary: "a protocol follower: the control connections and the flows they announce",
        params: &[param("protocol", ArgKind::Choice(PROTOCOLS))],
        variadic: false,
        mbuf: NONE,
        root_only: false,
    },
    Class {
        name: "native",
        aliases: &["c"],
        role: Role::Filter,
        summary: "a shared object with netsift's C filter ABI, loaded by the daemon",
        params: &[param("object", ArgKind::AbsolutePath)],
        variadic: false,
        mbuf: range(0, 0, MAX_MBUF),
        root_only: true,
    },
    Class {
        name: "aho_corasick",
        aliases: &["aho-corasick"],
        role: Role::External,
        summary: "passes packets whose payload holds one of the patterns",
        params: &[param("pattern", ArgKind::NonEmpty)],
        variadic: true,
        mbuf: range(0, 0, 8),
        root_only: false,
    },
    Class {
        name: "memmem",
        aliases: &["substring"],
        role: Role::External,
        summary: "passes packets whose payload holds the pattern (Boyer-Moore-style search)",
        params: &[param("pattern", ArgKind::NonEmpty)],
        variadic: false,
        mbuf: range(0, 0, 8),
        root_only: false,
    },
    Class {
        name: "hash",
        aliases: &[],
        role: Role::External,
        summary: "counts packets per bucket of a hash of the address pair and ports",
        params: &[param("buckets", ArgKind::Positive(1 << 16))],
        variadic: false,
        mbuf: Mbuf::PerEntry { base: 0, per: 8 },
        root_only: false,
    },
    Class {
        name: "checksum",
        aliases: &[],
        role: Role::External,
        summary: "passes packets whose IPv4, TCP and UDP checksums verify",
        params: &[],
        variadic: false,
        mbuf: NONE,
        root_only: false,
    },
    Class {
        name: "dynport",
        aliases: &[],
        role: Role::External,
        summary: "writes the ports a control connection announces into MBuf",
        params: &[param("protocol", ArgKind::Choice(PROTOCOLS))],
        variadic: false,
        mbuf: range(64, 4, MAX_MBUF),
        root_only: false,
    },
    Class {
        name: "topn",
        aliases: &[],
        role: Role::External,
        summary: "keeps the n most active TCP flows (address pair, ports, count) in MBuf",
        params: &[param("n", ArgKind::Positive(1024))],
        variadic: false,
        mbuf: Mbuf::PerEntry { base: 8, per: 16 },
        root_only: false,
    },
];

/// The class named `name` (or one of its aliases), in any case.
pub fn lookup(name: &str) -> Option<&'static Class> {
    CLASSES.iter().find(|c| {
        c.name.eq_ignore_ascii_case(name) || c.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    })
}

impl Class {
    /// How many arguments it needs at least.
    pub fn min_args(&self) -> usize {
        self.params.iter().filter(|p| !p.optional).count()
    }

    /// The parameter that argument `i` (0-based) is for, if any.
    pub fn param(&self, i: usize) -> Option<&'static Param> {
        match self.params.get(i) {
            Some(p) => Some(p),
            None if self.variadic => self.params.last(),
            None => None,
        }
    }

    /// The MBuf sizes allowed with these (checked) arguments: default, least, most.
    pub fn mbuf_range(&self, args: &[Value]) -> (u32, u32, u32) {
        match self.mbuf {
            Mbuf::Range { default, min, max } => (default, min, max),
            Mbuf::PerEntry { base, per } => {
                let n = match args.first() {
                    Some(Value::Int(n)) => *n,
                    _ => 0,
                };
                let least = (base as u64 + per as u64 * n).min(MAX_MBUF as u64) as u32;
                (least, least, MAX_MBUF)
            }
        }
    }
}

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

/// Classes are equal when their names are: the table holds each name once.
impl PartialEq for Class {
    fn eq(&self, other: &Class) -> bool {
        self.name == other.name
    }
}

impl Eq for Class {}
