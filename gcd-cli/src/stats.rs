//! Percentile summaries of timings, one definition for every command's text
//! and JSON output, so that `replay`, `sample --timings`, `bench` and
//! `maskbench` report the same statistic under the same name.

use std::time::Duration;

/// Count, mean and nearest-rank percentiles of a set of samples, in the
/// samples' unit (microseconds for mask times). All zero when empty.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Summary {
    /// How many samples.
    pub n: usize,
    /// Arithmetic mean.
    pub avg: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest sample.
    pub max: f64,
}

impl Summary {
    /// Summarizes `samples`, sorting them in place.
    pub fn of(samples: &mut [f64]) -> Summary {
        samples.sort_by(f64::total_cmp);
        let Some(&max) = samples.last() else {
            return Summary::default();
        };
        Summary {
            n: samples.len(),
            avg: samples.iter().sum::<f64>() / samples.len() as f64,
            p50: percentile(samples, 50.0),
            p90: percentile(samples, 90.0),
            p99: percentile(samples, 99.0),
            p999: percentile(samples, 99.9),
            max,
        }
    }

    /// Summarizes durations in microseconds.
    pub fn of_durations(times: &[Duration]) -> Summary {
        let mut us: Vec<f64> = times.iter().map(|d| d.as_secs_f64() * 1e6).collect();
        Summary::of(&mut us)
    }
}

/// The `p`-th percentile (0..=100) of sorted, non-empty `v`, by nearest rank.
pub fn percentile(v: &[f64], p: f64) -> f64 {
    let i = ((p / 100.0) * (v.len() as f64 - 1.0)).round() as usize;
    v[i.min(v.len() - 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut v: Vec<f64> = (1..=1000).rev().map(f64::from).collect();
        let s = Summary::of(&mut v);
        assert_eq!(s.n, 1000);
        assert_eq!(s.avg, 500.5);
        assert_eq!(
            (s.p50, s.p90, s.p99, s.p999, s.max),
            (501.0, 900.0, 990.0, 999.0, 1000.0)
        );
        assert_eq!(Summary::of(&mut []), Summary::default());
        assert_eq!(Summary::of(&mut [7.0]).p99, 7.0);
    }
}
