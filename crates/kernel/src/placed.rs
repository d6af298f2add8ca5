//! Programs attached under sockets: a generated program loaded and put under
//! every capture ring ([`attach`]), and a live set's clauses kept in the kernel
//! in step with user space's edits ([`PlacedClauses`]), as `--control --place
//! kernel` and the edit benchmark both keep them.

use crate::codegen::{generate_clauses_editable, Env, GenError, Generated};
use crate::sys::{Error, ProgKind, Program};
use netsift_isa::PassSet;
use std::os::fd::{AsRawFd, OwnedFd};

/// Why a program could not be placed. `Display` says which step failed and the
/// underlying error's message.
#[derive(Debug)]
pub struct PlaceError {
    kind: PlaceErrorKind,
}

/// Which step of placing a program failed, with its error.
#[derive(Debug)]
#[non_exhaustive]
pub enum PlaceErrorKind {
    /// It could not be generated.
    Generate(GenError),
    /// The kernel refused it (the verifier's log says why).
    Load(Error),
    /// A socket refused it.
    Attach(Error),
}

impl PlaceError {
    /// Which step failed, with its error.
    pub fn kind(&self) -> &PlaceErrorKind {
        &self.kind
    }

    fn load(e: Error) -> PlaceError {
        PlaceError {
            kind: PlaceErrorKind::Load(e),
        }
    }

    fn attach(e: Error) -> PlaceError {
        PlaceError {
            kind: PlaceErrorKind::Attach(e),
        }
    }
}

impl From<GenError> for PlaceError {
    fn from(e: GenError) -> PlaceError {
        PlaceError {
            kind: PlaceErrorKind::Generate(e),
        }
    }
}

impl std::fmt::Display for PlaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            PlaceErrorKind::Generate(e) => write!(f, "{e}"),
            PlaceErrorKind::Load(e) => write!(f, "the kernel refused the program: {e}"),
            PlaceErrorKind::Attach(e) => write!(f, "{e}"),
        }
    }
}

// No `source()`: the message holds the underlying error's (see `GenError`).
impl std::error::Error for PlaceError {}

/// Loads `g` as a socket filter and attaches it under every socket of `socks`
/// (`SO_ATTACH_BPF` replaces a socket's filter in one step). The sockets hold the
/// program; the handle returned may go.
pub fn attach<S: AsRawFd>(g: &Generated, socks: &[S]) -> Result<Program, PlaceError> {
    let p = Program::load(ProgKind::SocketFilter, "netsift", &g.insns).map_err(PlaceError::load)?;
    for s in socks {
        p.attach(s.as_raw_fd()).map_err(PlaceError::attach)?;
    }
    Ok(p)
}

/// A live set's clauses as one program under some sockets, each clause named by a
/// `K` (the clause's number, or whatever the caller keys them by).
///
/// Edits are ordered by the caller so that the kernel always accepts a superset
/// of what user space wants: an added clause is [`install`](Self::install)ed
/// before user space publishes it; a removed one is [`disable`](Self::disable)d
/// after user space dropped it. A clause installed as editable keeps its operands
/// in the program's shared table ([`Env::params`]), so [`param`](Self::param) on
/// it is a few stores; the others keep their compares in line, which cost no
/// lookup.
pub struct PlacedClauses<K> {
    socks: Vec<OwnedFd>,
    env: Env,
    current: Option<(Generated, Vec<K>)>,
}

impl<K: Copy + PartialEq> PlacedClauses<K> {
    /// No program yet, for the sockets `socks` (descriptors of their own, so
    /// that a socket stays valid while its ring's owner may go), in `env`.
    pub fn new(socks: Vec<OwnedFd>, env: Env) -> PlacedClauses<K> {
        PlacedClauses {
            socks,
            env,
            current: None,
        }
    }

    /// Generates the program for `clauses` (each with whether its operands may
    /// change) and swaps it in under every socket.
    pub fn install(&mut self, clauses: &[(K, &PassSet, bool)]) -> Result<(), PlaceError> {
        let sets: Vec<(&PassSet, bool)> = clauses.iter().map(|(_, s, e)| (*s, *e)).collect();
        let g = generate_clauses_editable(&sets, self.env)?;
        attach(&g, &self.socks)?;
        self.current = Some((g, clauses.iter().map(|(k, _, _)| *k).collect()));
        Ok(())
    }

    /// Where clause `k` is in the program in place, and the program.
    fn find(&self, k: K) -> Option<(&Generated, usize)> {
        let (g, order) = self.current.as_ref()?;
        Some((g, order.iter().position(|&m| m == k)?))
    }

    /// Turns clause `k` off in the program in place: one store into shared
    /// memory, no new program. False if the program does not hold it.
    pub fn disable(&self, k: K) -> Result<bool, Error> {
        match self.find(k) {
            Some((g, i)) => g.set_enabled(i, false).map(|()| true),
            None => Ok(false),
        }
    }

    /// Swift's `add_param` (`add`) or `del_param` of `value` on instruction `insn`
    /// of pass `pass` of clause `k` in the program in place: stores into its
    /// shared table. The clause must have been installed editable (else the
    /// table holds none of its operands and the write changes nothing); nothing
    /// if the program does not hold it.
    pub fn param(
        &self,
        k: K,
        pass: usize,
        insn: usize,
        value: u32,
        add: bool,
    ) -> Result<(), Error> {
        match self.find(k) {
            Some((g, c)) if add => g.add_param(c, pass, insn, value),
            Some((g, c)) => g.del_param(c, pass, insn, value).map(|_| ()),
            None => Ok(()),
        }
    }
}
