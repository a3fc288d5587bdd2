//! What both modes share: comparing a gcd mask with an llguidance mask bit
//! for bit, percentiles, and the process's peak memory.

use std::time::Duration;

use bitvec::prelude::*;
use llguidance::toktrie::{SimpleVob, TokenId};

pub fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The ids that only gcd allows and those that only llguidance allows,
/// over gcd's width and anything llguidance allows past it.
pub fn diff(gcd: &BitVec<u64, Lsb0>, llg: &SimpleVob) -> (Vec<u32>, Vec<u32>) {
    let width = gcd.len();
    let gw = gcd.as_raw_slice();
    let lw = llg.as_slice();
    let lword = |k: usize| -> u64 {
        let lo = lw.get(2 * k).copied().unwrap_or(0) as u64;
        let hi = lw.get(2 * k + 1).copied().unwrap_or(0) as u64;
        lo | (hi << 32)
    };
    let (mut gcd_only, mut llg_only) = (Vec::new(), Vec::new());
    for (k, &g) in gw.iter().enumerate() {
        let mut l = lword(k);
        if k == gw.len() - 1 && !width.is_multiple_of(64) {
            l &= (1u64 << (width % 64)) - 1;
        }
        let mut x = g ^ l;
        while x != 0 {
            let b = x.trailing_zeros();
            let id = (k * 64) as u32 + b;
            if g >> b & 1 == 1 {
                gcd_only.push(id);
            } else {
                llg_only.push(id);
            }
            x &= x - 1;
        }
    }
    for id in width..llg.len() {
        if llg.is_allowed(id as TokenId) {
            llg_only.push(id as u32);
        }
    }
    (gcd_only, llg_only)
}

/// The `p`-th percentile (0..=100) of sorted `v`, nearest rank (as gcd's
/// `maskbench` computes it).
pub fn pct(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let i = ((p / 100.0) * (v.len() as f64 - 1.0)).round() as usize;
    v[i.min(v.len() - 1)]
}

pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Peak resident memory of this process so far (`VmHWM`), in MB, where
/// the system reports it.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
