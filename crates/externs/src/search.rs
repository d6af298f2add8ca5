//! Payload scans: Aho-Corasick over a pattern set (`aho_corasick:SET`) and a
//! single-pattern substring search (`memmem:NAME`).
//!
//! The searchers are built once, when the function is registered, and shared
//! read-only (behind an `Arc`) by every program and every thread that calls
//! it; a call only searches, stops at the first match, and allocates nothing.
//!
//! Work per call, for `n` bytes searched: the automaton (large sets) and
//! `memchr::memmem` (Two-Way behind a vectorised prefilter) are linear, `O(n)`
//! whatever the packet holds; the packed searcher of a small set verifies each
//! candidate position against the patterns that share its fingerprint, at most
//! `n` times [`PACKED_MAX_BYTES`] byte comparisons however hostile the
//! payload, and in practice a fraction of a nanosecond a byte.

use crate::args::{put_slots, Range};
use crate::Error;
use aho_corasick::{packed, AhoCorasick, AhoCorasickKind, Input, MatchKind};
use memchr::memmem::Finder;
use netsift_fpl::externs::{Call, ExternFn};
use std::sync::Arc;

/// Input of both searches: the packet range, `(start, len)`.
pub const SEARCH_IN: usize = 16;
/// Output of `aho_corasick:SET`: the match's start and end offsets.
pub const AHO_OUT: usize = 16;
/// Output of `memmem:NAME`: the match's start offset.
pub const MEMMEM_OUT: usize = 8;

/// The most patterns a set searches with the packed (Teddy) searcher.
pub const PACKED_MAX_PATTERNS: usize = 64;
/// The most pattern bytes, all patterns together, for the packed searcher.
pub const PACKED_MAX_BYTES: usize = 1_024;

/// A pattern set compiled for search, built once: a small set (at most
/// [`PACKED_MAX_PATTERNS`] patterns of at most [`PACKED_MAX_BYTES`] bytes in
/// all) with the `aho-corasick` crate's packed searcher (Teddy: SIMD
/// fingerprints of all patterns at once, verified by comparing the candidate
/// bucket's patterns), anything else as an Aho-Corasick DFA.
#[derive(Clone, Debug)]
pub struct PatternSet {
    engine: Arc<Engine>,
    len: usize,
}

#[derive(Debug)]
enum Engine {
    Packed(packed::Searcher),
    Automaton(AhoCorasick),
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
    /// Builds the searcher for `patterns` (at least one, none empty, within
    /// [`MAX_PATTERNS`](crate::patterns::MAX_PATTERNS) and
    /// [`MAX_PATTERN_LEN`](crate::patterns::MAX_PATTERN_LEN)). The leftmost
    /// match wins, and of those starting there the pattern listed first, as a
    /// signature list is read.
    pub fn new<P: AsRef<[u8]>>(patterns: &[P]) -> Result<PatternSet, Error> {
        crate::patterns::check(patterns)?;
        let bytes: usize = patterns.iter().map(|p| p.as_ref().len()).sum();
        let small = patterns.len() <= PACKED_MAX_PATTERNS && bytes <= PACKED_MAX_BYTES;
        // Teddy needs SSSE3 or AVX2 (or NEON); without them `build` says no
        // and the automaton serves.
        let packed = small
            .then(|| {
                packed::Config::new()
                    .match_kind(packed::MatchKind::LeftmostFirst)
                    .builder()
                    .extend(patterns)
                    .build()
            })
            .flatten();
        let engine = match packed {
            Some(p) => Engine::Packed(p),
            None => Engine::Automaton(automaton(patterns)?),
        };
        Ok(PatternSet {
            engine: Arc::new(engine),
            len: patterns.len(),
        })
    }

    /// Whether the set searches with the packed searcher (else the automaton).
    pub fn is_packed(&self) -> bool {
        matches!(*self.engine, Engine::Packed(_))
    }

    /// The first match in `hay`, if any.
    pub fn find(&self, hay: &[u8]) -> Option<Found> {
        let m = match &*self.engine {
            Engine::Packed(p) => p.find(hay)?,
            // `try_find` fails only for an anchored search, which this input
            // never asks for; that would read as no match.
            Engine::Automaton(ac) => ac.try_find(Input::new(hay)).ok().flatten()?,
        };
        Some(Found {
            pattern: m.pattern().as_usize(),
            start: m.start(),
            end: m.end(),
        })
    }

    /// How many patterns the set holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none (never, once built).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The external function `aho_corasick:SET` over this set, named `name`.
    pub fn function(&self, name: String) -> ExternFn {
        let set = self.clone();
        search_fn(name, AHO_OUT, move |hay| {
            let m = set.find(hay)?;
            Some((m.pattern as i64 + 1, m.start, Some(m.end)))
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
        search_fn(name, MEMMEM_OUT, move |hay| Some((1, s.find(hay)?, None)))
    }
}

/// A search over the packet range in the input: `find` gives the value, the
/// match's start and maybe its end in the range; they are written as packet
/// offsets. Without a match (or a range) the value is 0 and nothing is written.
fn search_fn(
    name: String,
    output_len: usize,
    find: impl Fn(&[u8]) -> Option<(i64, usize, Option<usize>)> + Send + Sync + 'static,
) -> ExternFn {
    ExternFn::new(name, SEARCH_IN, output_len, move |mut call: Call<'_>| {
        let Some((base, hay)) = Range::read(call.input(), 0).clamped(call.packet) else {
            return 0;
        };
        let Some((value, start, end)) = find(hay) else {
            return 0;
        };
        let (start, end) = ((base + start) as i64, end.map(|e| (base + e) as i64));
        match end {
            Some(end) => put_slots(call.output(), &[start, end]),
            None => put_slots(call.output(), &[start]),
        };
        value
    })
}

/// An Aho-Corasick DFA for a large set: memory once, at registration, and one
/// table lookup a byte. Past the DFA's size limit the builder's own choice (a
/// contiguous NFA) is still linear. No prefilter: for sets this large the
/// crate's fallback prefilters (rare or start bytes) stop the automaton every
/// few bytes on payloads full of those bytes, and the 1,000-pattern set of
/// `examples/aho_time.rs` ran 1.6 times slower with one.
fn automaton<P: AsRef<[u8]>>(patterns: &[P]) -> Result<AhoCorasick, Error> {
    let mut b = AhoCorasick::builder();
    b.match_kind(MatchKind::LeftmostFirst).prefilter(false);
    b.kind(Some(AhoCorasickKind::DFA))
        .build(patterns)
        .or_else(|_| b.kind(None).build(patterns))
        .map_err(|e| Error::Patterns {
            line: 0,
            message: format!("the automaton cannot be built: {e}"),
        })
}
