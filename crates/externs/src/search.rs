//! Payload scans: Aho-Corasick over a pattern set (`aho_corasick:SET`) and a
//! single-pattern substring search (`memmem:NAME`).
//!
//! The automaton and the finder are built once, when the function is
//! registered, and shared read-only (behind an `Arc`) by every program and
//! every thread that calls it; a call only searches. Both searches run in time
//! linear in the bytes searched whatever the packet holds (the `aho-corasick`
//! crate's automata, and `memchr::memmem`'s Two-Way fallback behind its
//! vectorised prefilter), stop at the first match, and allocate nothing.

use crate::args::{put_slots, Range};
use crate::Error;
use aho_corasick::{AhoCorasick, Input, MatchKind};
use memchr::memmem::Finder;
use netsift_fpl::externs::{Call, ExternFn};
use std::sync::Arc;

/// Input of both searches: the packet range, `(start, len)`.
pub const SEARCH_IN: usize = 16;
/// Output of `aho_corasick:SET`: the match's start and end offsets.
pub const AHO_OUT: usize = 16;
/// Output of `memmem:NAME`: the match's start offset.
pub const MEMMEM_OUT: usize = 8;

/// A pattern set compiled into an Aho-Corasick automaton, built once.
#[derive(Clone, Debug)]
pub struct PatternSet {
    ac: Arc<AhoCorasick>,
}

/// Where a search found its first match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// Index of the pattern in the set (0 for a substring search).
    pub pattern: usize,
    /// Offset of the match's first byte in the searched bytes.
    pub start: usize,
    /// Offset just past its last byte.
    pub end: usize,
}

impl PatternSet {
    /// Builds the automaton for `patterns` (at least one, none empty, within
    /// [`MAX_PATTERNS`](crate::patterns::MAX_PATTERNS) and
    /// [`MAX_PATTERN_LEN`](crate::patterns::MAX_PATTERN_LEN)). The leftmost
    /// match wins, and of those starting there the pattern listed first, as a
    /// signature list is read.
    pub fn new<P: AsRef<[u8]>>(patterns: &[P]) -> Result<PatternSet, Error> {
        crate::patterns::check(patterns)?;
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(patterns)
            .map_err(|e| Error::Patterns {
                line: 0,
                message: format!("the automaton cannot be built: {e}"),
            })?;
        Ok(PatternSet { ac: Arc::new(ac) })
    }

    /// The first match in `hay`, if any.
    pub fn find(&self, hay: &[u8]) -> Option<Found> {
        // `find` on a built automaton only fails for an unsupported anchored
        // search, which this input never asks for; treat it as no match.
        let m = self.ac.try_find(Input::new(hay)).ok().flatten()?;
        Some(Found {
            pattern: m.pattern().as_usize(),
            start: m.start(),
            end: m.end(),
        })
    }

    /// How many patterns the set holds.
    pub fn len(&self) -> usize {
        self.ac.patterns_len()
    }

    /// Whether it holds none (never, once built).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The external function `aho_corasick:SET` over this set, named `name`.
    pub fn function(&self, name: String) -> ExternFn {
        let set = self.clone();
        ExternFn::new(name, SEARCH_IN, AHO_OUT, move |mut call: Call<'_>| {
            let Some((base, hay)) = Range::read(call.input(), 0).clamped(call.packet) else {
                return 0;
            };
            let Some(m) = set.find(hay) else { return 0 };
            let (start, end) = (base + m.start, base + m.end);
            put_slots(call.output(), &[start as i64, end as i64]);
            m.pattern as i64 + 1
        })
    }
}

/// One pattern with its prebuilt substring finder.
#[derive(Clone, Debug)]
pub struct Substring {
    finder: Arc<Finder<'static>>,
}

impl Substring {
    /// The finder for `pattern` (non-empty, at most
    /// [`MAX_PATTERN_LEN`](crate::patterns::MAX_PATTERN_LEN) bytes).
    pub fn new(pattern: &[u8]) -> Result<Substring, Error> {
        crate::patterns::check(&[pattern])?;
        Ok(Substring {
            finder: Arc::new(Finder::new(pattern).into_owned()),
        })
    }

    /// The offset of the first occurrence in `hay`, if any.
    pub fn find(&self, hay: &[u8]) -> Option<usize> {
        self.finder.find(hay)
    }

    /// The external function `memmem:NAME` for this pattern, named `name`.
    pub fn function(&self, name: String) -> ExternFn {
        let s = self.clone();
        ExternFn::new(name, SEARCH_IN, MEMMEM_OUT, move |mut call: Call<'_>| {
            let Some((base, hay)) = Range::read(call.input(), 0).clamped(call.packet) else {
                return 0;
            };
            let Some(at) = s.find(hay) else { return 0 };
            put_slots(call.output(), &[(base + at) as i64]);
            1
        })
    }
}
