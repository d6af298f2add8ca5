//! A collector of differences: a test that compares many cases records each
//! that differs, keeps the first few as examples and counts the rest, and fails
//! once at the end with the count and the examples, not at the first one.

use std::fmt::Debug;

/// Differences found so far, up to `keep` examples of them.
#[derive(Debug)]
pub struct Mismatches<T> {
    what: String,
    keep: usize,
    checked: u64,
    count: u64,
    examples: Vec<T>,
}

impl<T: Debug> Mismatches<T> {
    /// An empty collector for `what` is compared, keeping `keep` examples.
    pub fn new(what: impl Into<String>, keep: usize) -> Mismatches<T> {
        Mismatches {
            what: what.into(),
            keep,
            checked: 0,
            count: 0,
            examples: Vec::new(),
        }
    }

    /// Counts one case; when it is not `ok`, records `example()` as a mismatch.
    pub fn check(&mut self, ok: bool, example: impl FnOnce() -> T) {
        self.checked += 1;
        if !ok {
            self.record_with(example);
        }
    }

    /// Records one mismatch (not counted as a case checked).
    pub fn record(&mut self, example: T) {
        self.record_with(|| example);
    }

    fn record_with(&mut self, example: impl FnOnce() -> T) {
        self.count += 1;
        if self.examples.len() < self.keep {
            self.examples.push(example());
        }
    }

    /// How many mismatches were recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// How many cases were checked with [`Self::check`].
    pub fn checked(&self) -> u64 {
        self.checked
    }

    /// The examples kept.
    pub fn examples(&self) -> &[T] {
        &self.examples
    }

    /// Panics with the count and the examples if anything was recorded.
    #[track_caller]
    pub fn assert_none(&self) {
        let of = if self.checked > 0 {
            format!(" in {} checked", self.checked)
        } else {
            String::new()
        };
        assert!(
            self.count == 0,
            "{}: {} mismatches{of}; the first {}: {:#?}",
            self.what,
            self.count,
            self.examples.len(),
            self.examples
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_few_and_counts_all() {
        let mut m = Mismatches::new("numbers", 2);
        for i in 0..10 {
            m.check(i % 3 != 0, || i);
        }
        assert_eq!((m.count(), m.checked(), m.examples()), (4, 10, &[0, 3][..]));
        let r = std::panic::catch_unwind(|| m.assert_none());
        assert!(r.is_err());
        Mismatches::<u8>::new("nothing", 2).assert_none();
    }
}
