//! The filter classes, in one table ([`CLASSES`]): each entry is a class's name,
//! its role, the arguments it takes and how each is checked, the MBuf sizes it
//! allows and whether only root may use it. Adding a class is adding an entry.
//!
//! The checks here are the ones that need nothing but the text: a class whose
//! argument is a program in another language (`pcap`, `fpl`) only checks that it
//! is a string, and the daemon compiles it when it instantiates the filter.
//!
//! `types.rs` holds what an entry is, `table.rs` the entries and the look-up,
//! `check.rs` how each kind of argument is checked.

mod check;
mod table;
mod types;

pub use check::{check_bpf, BPF_MAXINSNS};
pub use table::{lookup, CLASSES};
pub use types::{ArgKind, Class, Mbuf, Param, Role, Value, MAX_MBUF};
