//! Summaries of repeated measurements, shared by every experiment: the machines are
//! noisy, so figures are medians with their min and max.

/// Median, minimum and maximum of some samples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stat {
    /// The middle sample, or the mean of the middle two for an even count.
    pub median: f64,
    /// The smallest sample.
    pub min: f64,
    /// The largest sample.
    pub max: f64,
}

impl Stat {
    /// `None` for no samples. An even count takes the mean of the middle two.
    pub fn of(v: &[f64]) -> Option<Stat> {
        if v.is_empty() {
            return None;
        }
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            (s[n / 2 - 1] + s[n / 2]) / 2.0
        };
        Some(Stat {
            median,
            min: s[0],
            max: s[n - 1],
        })
    }
}

/// The p-th percentile of sorted samples (nearest rank); 0 for no samples.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
