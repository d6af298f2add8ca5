//! What a class table entry is: a class, its parameters, its MBuf rule, and
//! the values checked arguments become.

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
    /// newlines; checked to be a program that runs safely (see [`check_bpf`](super::check::check_bpf)).
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

/// Classes are equal when their names are: the table holds each name once.
impl PartialEq for Class {
    fn eq(&self, other: &Class) -> bool {
        self.name == other.name
    }
}

impl Eq for Class {}
