//! One module per `gcd` command: its flags (`Args`) and `run`. What
//! several reports share, timing and mask-time summaries, is here.

use std::time::{Duration, Instant};

use gcd_cli::stats::Summary;

use crate::args::Result;

mod accepts;
pub mod batch;
pub mod bench;
pub mod budget;
pub mod check;
pub mod maskbench;
pub mod replay;
pub mod sample;

/// Runs `f`, returning its result with how long it took.
fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, Duration)> {
    let t0 = Instant::now();
    let value = f()?;
    Ok((value, t0.elapsed()))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Mask times in the text form `sample --timings` and `bench` print.
fn summarize(masks: &Summary) -> String {
    if masks.n == 0 {
        return "none".into();
    }
    format!(
        "n={} avg={:.1}us p50={:.1}us p99={:.1}us max={:.1}us",
        masks.n, masks.avg, masks.p50, masks.p99, masks.max
    )
}
