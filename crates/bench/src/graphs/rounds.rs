//! Contenders timed side by side: every round runs each contender once, the
//! order turning from round to round, so that a noisy stretch of the shared
//! machine falls on all of them alike; each contender's figure is the median
//! with min and max over the rounds.

use crate::stats::Stat;
use std::hint::black_box;
use std::time::Instant;

/// One contender: runs its operations once and returns ns per operation, or
/// why it could not.
pub type Sample<'a> = Box<dyn FnMut() -> Result<f64, String> + 'a>;

/// A contender that calls `op` `ops` times, timed by the clock around them.
pub fn timed<'a, T>(ops: u64, mut op: impl FnMut() -> T + 'a) -> Sample<'a> {
    let ops = ops.max(1);
    Box::new(move || {
        let t = Instant::now();
        for _ in 0..ops {
            black_box(op());
        }
        Ok(t.elapsed().as_nanos() as f64 / ops as f64)
    })
}

/// Runs `contenders` over `runs` rounds (after one untimed warm-up each) and
/// returns their figures in the order given.
pub fn alternate(runs: usize, contenders: &mut [Sample<'_>]) -> Result<Vec<Stat>, String> {
    for c in contenders.iter_mut() {
        c()?;
    }
    let n = contenders.len();
    let mut samples = vec![Vec::with_capacity(runs); n];
    for round in 0..runs.max(1) {
        for k in 0..n {
            let i = (round + k) % n;
            samples[i].push(contenders[i]()?);
        }
    }
    Ok(samples
        .iter()
        .map(|s| Stat::of(s).unwrap_or_default())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_runs_every_round_and_errors_stop_it() {
        let (mut a, mut b) = (0, 0);
        {
            let mut cs: Vec<Sample<'_>> = vec![
                Box::new(|| {
                    a += 1;
                    Ok(1.0)
                }),
                Box::new(|| {
                    b += 1;
                    Ok(2.0)
                }),
            ];
            let s = alternate(3, &mut cs).unwrap();
            assert_eq!((s[0].median, s[1].median), (1.0, 2.0));
        }
        assert_eq!((a, b), (4, 4), "a warm-up and three rounds each");
        let mut cs: Vec<Sample<'_>> = vec![Box::new(|| Err("no".to_string()))];
        assert_eq!(alternate(3, &mut cs), Err("no".to_string()));
    }
}
