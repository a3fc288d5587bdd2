//! Bounds on non-integer numbers as regexes over decimal spellings.
//!
//! A bounded `number` accepts plain decimals (`-?int(.frac)?`) whose value
//! lies within the bounds, compared digit by digit (no float rounding).
//! Spellings with an exponent are refused when bounds apply — a subset of
//! the valid texts, never a superset.

use std::cmp::Ordering;

use serde_json::Number;

use gcd_core::json::number::natural_range;

/// Both bounds fall inside one integer interval with fractional ends
/// (`[0.25, 0.75]`): not built yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unbuildable;

/// A non-negative decimal: integer part and fraction digits (no trailing zeros).
#[derive(Clone, Debug, PartialEq)]
pub struct Dec {
    pub int: u128,
    pub frac: Vec<u8>,
}

/// A bound: sign, magnitude, inclusive.
#[derive(Clone, Debug)]
pub struct Bound {
    pub neg: bool,
    pub mag: Dec,
    pub incl: bool,
}

impl Bound {
    fn is_zero(&self) -> bool {
        self.mag.int == 0 && self.mag.frac.is_empty()
    }
    /// Strictly positive / strictly negative.
    fn pos(&self) -> bool {
        !self.neg && !self.is_zero()
    }
    fn negative(&self) -> bool {
        self.neg && !self.is_zero()
    }
}

/// Reads a JSON number exactly (from its text); `None` if its magnitude or
/// precision is beyond what we handle (about 30 integer digits).
pub fn parse(n: &Number) -> Option<(bool, Dec)> {
    let s = n.to_string();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.as_str()),
    };
    let (mant, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (ip, fp) = mant.split_once('.').unwrap_or((mant, ""));
    let digits: Vec<u8> = ip.bytes().chain(fp.bytes()).map(|b| b - b'0').collect();
    let point = ip.len() as i32 + exp;
    if !(-60..=30).contains(&point) {
        return None;
    }
    let mut int = 0u128;
    let mut frac = Vec::new();
    for (i, d) in digits.iter().enumerate() {
        if (i as i32) < point {
            int = int * 10 + *d as u128;
        } else {
            frac.push(*d);
        }
    }
    for _ in digits.len() as i32..point {
        int *= 10;
    }
    if point < 0 {
        let mut f = vec![0u8; (-point) as usize];
        f.extend(frac);
        frac = f;
    }
    while frac.last() == Some(&0) {
        frac.pop();
    }
    Some((neg, Dec { int, frac }))
}

/// Compares two bounds' values (ignoring inclusiveness).
pub fn signed_cmp(a: &Bound, b: &Bound) -> Ordering {
    let (an, bn) = (a.negative(), b.negative());
    match (an, bn) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => cmp(&a.mag, &b.mag),
        (true, true) => cmp(&b.mag, &a.mag),
    }
}

fn cmp(a: &Dec, b: &Dec) -> Ordering {
    a.int.cmp(&b.int).then_with(|| {
        let n = a.frac.len().max(b.frac.len());
        let pad = |f: &[u8]| {
            (0..n)
                .map(|i| f.get(i).copied().unwrap_or(0))
                .collect::<Vec<_>>()
        };
        pad(&a.frac).cmp(&pad(&b.frac))
    })
}

#[derive(Clone, Copy)]
enum Op {
    Ge,
    Gt,
    Le,
    Lt,
}

fn cls(lo: u8, hi: u8) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("[{lo}-{hi}]")
    }
}

/// Fraction digit strings `d` (nonempty) with `0.d op 0.F`, and whether the
/// absent fraction (value 0) satisfies it.
fn frac(op: Op, f: &[u8]) -> (bool, Option<String>) {
    let alt = |v: Vec<String>| (!v.is_empty()).then(|| format!("(?:{})", v.join("|")));
    let Some((&d, rest)) = f.split_first() else {
        return match op {
            Op::Ge => (true, Some("[0-9]+".into())),
            Op::Gt => (false, Some("[0-9]*[1-9][0-9]*".into())),
            Op::Le => (true, Some("0+".into())),
            Op::Lt => (false, None),
        };
    };
    let mut v = Vec::new();
    match op {
        Op::Ge | Op::Gt => {
            if d < 9 {
                v.push(format!("{}[0-9]*", cls(d + 1, 9)));
            }
            let tail = if rest.is_empty() {
                Some(if matches!(op, Op::Ge) {
                    "[0-9]*".to_string()
                } else {
                    "[0-9]*[1-9][0-9]*".to_string()
                })
            } else {
                frac(op, rest).1
            };
            if let Some(t) = tail {
                v.push(format!("{d}{t}"));
            }
            (false, alt(v))
        }
        Op::Le | Op::Lt => {
            if d > 0 {
                v.push(format!("{}[0-9]*", cls(0, d - 1)));
            }
            if rest.is_empty() {
                if matches!(op, Op::Le) {
                    v.push(format!("{d}0*"));
                }
            } else if let Some(t) = frac(op, rest).1 {
                v.push(format!("{d}(?:{t})?"));
            } else {
                v.push(d.to_string());
            }
            (true, alt(v))
        }
    }
}

/// The optional `.digits` suffix satisfying `op F`, or `None` if none does.
fn suffix(op: Op, f: &[u8]) -> Option<String> {
    let (empty, ne) = frac(op, f);
    match (empty, ne) {
        (true, Some(r)) => Some(format!("(?:\\.{r})?")),
        (false, Some(r)) => Some(format!("\\.{r}")),
        (true, None) => Some(String::new()),
        (false, None) => None,
    }
}

const ANY_FRAC: &str = r"(?:\.[0-9]+)?";

/// Unsigned decimals in `[lo, hi]` (each end inclusive or not).
fn magnitude(lo: (&Dec, bool), hi: Option<(&Dec, bool)>) -> Result<Option<String>, Unbuildable> {
    let (l, li) = lo;
    let lo_op = if li { Op::Ge } else { Op::Gt };
    let mut alts = Vec::new();
    match hi {
        None => {
            if let Some(s) = suffix(lo_op, &l.frac) {
                alts.push(format!("{}{s}", l.int));
            }
            alts.push(format!(
                "{}{ANY_FRAC}",
                natural_range(l.int + 1, None).expect("unbounded above")
            ));
        }
        Some((h, hi_incl)) => {
            match cmp(l, h) {
                Ordering::Greater => return Ok(None),
                Ordering::Equal if !(li && hi_incl) => return Ok(None),
                _ => {}
            }
            let hi_op = if hi_incl { Op::Le } else { Op::Lt };
            if l.int < h.int {
                if let Some(s) = suffix(lo_op, &l.frac) {
                    alts.push(format!("{}{s}", l.int));
                }
                if l.int + 1 < h.int {
                    alts.push(format!(
                        "{}{ANY_FRAC}",
                        natural_range(l.int + 1, Some(h.int - 1)).expect("l.int + 1 < h.int")
                    ));
                }
                if let Some(s) = suffix(hi_op, &h.frac) {
                    alts.push(format!("{}{s}", h.int));
                }
            } else if l.frac.is_empty() && li {
                if let Some(s) = suffix(hi_op, &h.frac) {
                    alts.push(format!("{}{s}", h.int));
                }
            } else {
                return Err(Unbuildable);
            }
        }
    }
    Ok((!alts.is_empty()).then(|| format!("(?:{})", alts.join("|"))))
}

/// Regex for plain decimal JSON numbers within the bounds; `Ok(None)` when
/// no number is; `Err` when we cannot build it (both bounds fractional
/// inside one integer interval).
pub fn range(lo: Option<&Bound>, hi: Option<&Bound>) -> Result<Option<String>, Unbuildable> {
    let zero = Dec {
        int: 0,
        frac: vec![],
    };
    let mut alts = Vec::new();
    // x >= 0.
    if !hi.is_some_and(Bound::negative) {
        let lower = match lo {
            Some(b) if !b.negative() => (&b.mag, b.incl),
            _ => (&zero, true),
        };
        if let Some(r) = magnitude(lower, hi.map(|b| (&b.mag, b.incl)))? {
            alts.push(r);
        }
    }
    // x <= 0, spelled with '-': magnitudes within [|hi|, |lo|].
    if !lo.is_some_and(Bound::pos) {
        let lower = match hi {
            Some(b) if !b.pos() => (&b.mag, b.incl),
            _ => (&zero, true),
        };
        if let Some(r) = magnitude(lower, lo.map(|b| (&b.mag, b.incl)))? {
            alts.push(format!("-{r}"));
        }
    }
    Ok((!alts.is_empty()).then(|| format!("(?:{})", alts.join("|"))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::full;

    fn b(x: f64, incl: bool) -> Bound {
        let (neg, mag) = parse(&Number::from_f64(x).unwrap()).unwrap();
        Bound { neg, mag, incl }
    }

    #[test]
    fn parses_exactly() {
        let p = |s: &str| parse(&serde_json::from_str::<Number>(s).unwrap()).unwrap();
        assert_eq!(
            p("1.25"),
            (
                false,
                Dec {
                    int: 1,
                    frac: vec![2, 5]
                }
            )
        );
        assert_eq!(
            p("-0.5"),
            (
                true,
                Dec {
                    int: 0,
                    frac: vec![5]
                }
            )
        );
        assert_eq!(
            p("1e-3"),
            (
                false,
                Dec {
                    int: 0,
                    frac: vec![0, 0, 1]
                }
            )
        );
        assert_eq!(
            p("12"),
            (
                false,
                Dec {
                    int: 12,
                    frac: vec![]
                }
            )
        );
    }

    #[test]
    fn ranges_agree_with_float_comparison() {
        let bounds = [-2.5, -1.0, -0.05, 0.0, 0.3, 1.0, 2.75, 10.0];
        let mut samples: Vec<String> = Vec::new();
        for i in -300..=1100 {
            let x = i as f64 / 100.0;
            samples.push(format!("{x}"));
            samples.push(format!("{x:.3}"));
        }
        samples.extend(["-0", "-0.0", "0.0", "0.30000", "2.7500", "0.299999"].map(String::from));
        let mut cases: Vec<(Option<Bound>, Option<Bound>)> = Vec::new();
        for &l in &bounds {
            for li in [true, false] {
                cases.push((Some(b(l, li)), None));
                cases.push((None, Some(b(l, li))));
                for &h in &bounds {
                    for hi in [true, false] {
                        cases.push((Some(b(l, li)), Some(b(h, hi))));
                    }
                }
            }
        }
        let (total, mut refused) = (cases.len(), 0);
        for (lo, hi) in cases {
            // Refused (an error for the caller) only when both ends fall
            // inside one integer interval.
            let Ok(re) = range(lo.as_ref(), hi.as_ref()) else {
                refused += 1;
                continue;
            };
            let m = re.as_deref().map(full);
            let val = |bd: &Bound| {
                let s = format!(
                    "{}{}.{}",
                    if bd.neg { "-" } else { "" },
                    bd.mag.int,
                    bd.mag
                        .frac
                        .iter()
                        .map(|d| d.to_string())
                        .collect::<String>()
                );
                s.trim_end_matches('.').parse::<f64>().unwrap()
            };
            for s in &samples {
                let x: f64 = s.parse().unwrap();
                let inside = lo
                    .as_ref()
                    .is_none_or(|l| if l.incl { x >= val(l) } else { x > val(l) })
                    && hi
                        .as_ref()
                        .is_none_or(|h| if h.incl { x <= val(h) } else { x < val(h) });
                let got = m.as_ref().is_some_and(|m| m(s));
                assert_eq!(got, inside, "{s} in {lo:?}..{hi:?} ({re:?})");
            }
        }
        assert!(refused * 5 < total, "{refused} of {total} refused");
    }
}
