//! Bounds on non-integer numbers as regexes over decimal spellings.
//!
//! A bounded `number` accepts exactly the spellings whose value lies within
//! the bounds, compared digit by digit (no float rounding), among these:
//!
//! - every plain decimal (`-?int(.frac)?`), however long;
//! - every spelling with an exponent (any JSON exponent: `e` or `E`, a
//!   sign or none, leading zeros, any number of digits) whose mantissa is
//!   zero (`0e5`, `-0.00E-3`) or at least 0.1 and below 1000: one to three
//!   integer digits, or `0.` and a nonzero digit, then any fraction
//!   (`1e-05`, `2.2250738585072014e-308`, `1.2784086961402516e+16`,
//!   `12.5E3`, `0.5e-3`). Shortest round-trip printers (Python's `repr`,
//!   JavaScript, ryu) write one integer digit there, engineering notation
//!   up to three;
//! - for numbers of a sign the bounds leave free (positive ones under
//!   `minimum: 0` alone, say), every spelling.
//!
//! Other mantissas with an exponent (`1000e-3`, `0.05e2`) are refused: a
//! subset of the valid texts, never a superset. Some limit is needed:
//! whether `1` + n zeros + `e-`k is at most 255 compares n with k, which
//! no finite automaton does for every n. With the mantissa's decimal point
//! at one of a few places from its first nonzero digit, the number's
//! magnitude is that place plus the exponent, so each place is an
//! alternative taking an interval of exponents: those putting the number
//! strictly between the bounds' magnitudes, and the one at a bound's
//! magnitude when the digits meet the bound's. The automaton grows with
//! the places, each taking its own exponents: for typical bounds, the 34
//! places of mantissas of up to 17 digits (`[10^-17, 10^17)`) take 190 to
//! 320 states, the 4 places here 16 to 69 (minimized by regex-automata,
//! as the compiler asks for them: determinized alone, two to four times
//! as many).

use std::cmp::Ordering;
use std::ops::RangeInclusive;

use serde_json::Number;

use gcd_core::json::number::natural_range;

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

fn cls(lo: u8, hi: u8) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("[{lo}-{hi}]")
    }
}

/// Spellings with an exponent need a mantissa `0.S × 10^place` (`S`
/// starting with a nonzero digit) with `place` in this range: a nonzero
/// mantissa in `[0.1, 1000)`.
const EXPONENT_PLACES: RangeInclusive<i64> = 0..=3;

/// Zero, spelled in every way.
const ZERO: &str = r"0(?:\.0+)?(?:[eE][+-]?[0-9]+)?";

/// Every nonzero unsigned number.
const NONZERO: &str = r"(?:[1-9][0-9]*(?:\.[0-9]+)?|0\.[0-9]*[1-9][0-9]*)(?:[eE][+-]?[0-9]+)?";

/// A nonzero magnitude as `0.digits × 10^place` (first digit nonzero, no
/// trailing zeros).
struct Normal {
    place: i64,
    digits: Vec<u8>,
}

/// `d` normalized; `None` for zero.
fn normal(d: &Dec) -> Option<Normal> {
    let int: Vec<u8> = if d.int == 0 {
        Vec::new()
    } else {
        d.int.to_string().bytes().map(|b| b - b'0').collect()
    };
    let mut digits: Vec<u8> = int.iter().chain(&d.frac).copied().collect();
    let lead = digits.iter().position(|&x| x != 0)?;
    digits.drain(..lead);
    while digits.last() == Some(&0) {
        digits.pop();
    }
    Some(Normal {
        place: int.len() as i64 - lead as i64,
        digits,
    })
}

/// One bound on a mantissa's significant digits `S`, compared as fractions
/// `0.S` and `0.digits`: `S >= digits` for a lower bound, `S <= digits` for
/// an upper one (strictly when `strict`).
#[derive(Clone, Copy)]
struct Side<'a> {
    digits: &'a [u8],
    strict: bool,
}

impl<'a> Side<'a> {
    /// The condition failing this bound: `S < digits` for a lower bound
    /// `S >= digits` (as an upper bound), and so on.
    fn failed(self) -> Side<'a> {
        Side {
            strict: !self.strict,
            ..self
        }
    }

    /// Of two lower (`lower`) or two upper bounds, the one implying the
    /// other.
    fn tighter(self, other: Side<'a>, lower: bool) -> Side<'a> {
        let n = self.digits.len().max(other.digits.len());
        let pad = |d: &[u8]| {
            (0..n)
                .map(|i| d.get(i).copied().unwrap_or(0))
                .collect::<Vec<_>>()
        };
        match pad(self.digits).cmp(&pad(other.digits)) {
            Ordering::Equal if self.strict => self,
            Ordering::Equal => other,
            Ordering::Greater if lower => self,
            Ordering::Less if !lower => self,
            _ => other,
        }
    }
}

/// The mantissa spellings being generated: `0.S × 10^place` with `S`
/// within `lo` and `hi`; `dot` is the number of integer digits (`place`
/// when positive), 0 for a mantissa `0.0…S`.
struct Mantissa<'a> {
    dot: usize,
    lo: Option<Side<'a>>,
    hi: Option<Side<'a>>,
}

impl Mantissa<'_> {
    /// The rest of a spelling after `i` digits of `S`, while `S` equals
    /// the lower (`lt`) or upper (`ht`) bound's digits so far (else it is
    /// already strictly inside that bound); `None` when no rest satisfies
    /// the bounds. `Some("")` is only the end.
    fn rest(&self, i: usize, lt: bool, ht: bool) -> Option<String> {
        let lo = self.lo.filter(|_| lt);
        let hi = self.hi.filter(|_| ht);
        let len = |s: Option<Side>| s.map_or(0, |s| s.digits.len());
        // Only fraction digits remain, and the end may come anywhere.
        let fraction = i >= 1 && (self.dot == 0 || i > self.dot);
        if fraction && i >= len(lo) && i >= len(hi) {
            // Equal to a tight bound so far: its remaining digits are zeros.
            let lo_strict = lo.is_some_and(|s| s.strict);
            let hi_strict = hi.is_some_and(|s| s.strict);
            return match (lo.is_some(), hi.is_some()) {
                (false, false) => Some("[0-9]*".into()),
                (true, false) if lo_strict => Some("0*[1-9][0-9]*".into()),
                (true, false) => Some("[0-9]*".into()),
                (_, true) => (!lo_strict && !hi_strict).then(|| "0*".into()),
            };
        }
        if lo.is_none() && hi.is_none() && i >= 1 {
            // Any digits: the rest of the integer part, any fraction.
            let n = self.dot - i;
            let int = if n == 0 {
                String::new()
            } else {
                format!("[0-9]{{{n}}}")
            };
            return Some(format!(r"{int}(?:\.[0-9]+)?"));
        }
        let can_end = i >= self.dot.max(1)
            && lo.is_none_or(|s| i >= s.digits.len() && !s.strict)
            && hi.is_none_or(|s| i < s.digits.len() || !s.strict);
        // The next digit: where each bound stands after it, or `None` when
        // it passes one.
        let step = |d: u8| -> Option<(bool, bool)> {
            let at = |s: Side| s.digits.get(i).copied().unwrap_or(0);
            if lo.is_some_and(|s| d < at(s)) || hi.is_some_and(|s| d > at(s)) {
                return None;
            }
            Some((
                lo.is_some_and(|s| d == at(s)),
                hi.is_some_and(|s| d == at(s)),
            ))
        };
        let dot = if self.dot >= 1 && i == self.dot {
            r"\."
        } else {
            ""
        };
        let mut alts = Vec::new();
        let mut d = if i == 0 { 1 } else { 0 };
        while d <= 9 {
            let next = step(d);
            let mut e = d;
            while e < 9 && step(e + 1) == next {
                e += 1;
            }
            if let Some(rest) = next.and_then(|(l, h)| self.rest(i + 1, l, h)) {
                alts.push(format!("{dot}{}{rest}", cls(d, e)));
            }
            d = e + 1;
        }
        let one = match alts.len() {
            0 => return can_end.then(String::new),
            1 => alts.pop().expect("one alternative"),
            _ => format!("(?:{})", alts.join("|")),
        };
        Some(if can_end { format!("(?:{one})?") } else { one })
    }
}

/// Spellings of the mantissas `0.S × 10^place` (`S` starting with a
/// nonzero digit) with `S` within `lo` and `hi`: `place` integer digits
/// and any fraction when `place >= 1`, else `0.`, `-place` zeros and `S`.
fn mantissa(place: i64, lo: Option<Side>, hi: Option<Side>) -> Option<String> {
    let m = Mantissa {
        dot: place.max(0) as usize,
        lo,
        hi,
    };
    let s = m.rest(0, lo.is_some(), hi.is_some())?;
    Some(match -place {
        z if z < 0 => s,
        0 => format!(r"0\.{s}"),
        1 => format!(r"0\.0{s}"),
        z => format!(r"0\.0{{{z}}}{s}"),
    })
}

/// The exponents `e >= 0` within `lo..=hi` (`None`: unbounded), spelled
/// after the `e`: an optional `+`, leading zeros. `None` when there is none.
fn exponent_up(lo: Option<i64>, hi: Option<i64>) -> Option<String> {
    let a = lo.map_or(0, |a| a.max(0));
    if hi.is_some_and(|b| b < a) {
        return None;
    }
    Some(match hi {
        None if a == 0 => r"\+?[0-9]+".to_string(),
        _ => {
            let n = natural_range(a as u128, hi.map(|b| b as u128)).expect("a <= b");
            format!(r"\+?0*{n}")
        }
    })
}

/// The exponents `e <= 0` within `lo..=hi` spelled with a `-` (`-0`
/// too), after the `e`. `None` when there is none.
fn exponent_down(lo: Option<i64>, hi: Option<i64>) -> Option<String> {
    let zero = lo.is_none_or(|a| a <= 0) && hi.is_none_or(|b| b >= 0);
    // Magnitudes of the negative ones.
    let a = hi.map_or(1, |b| (-b).max(1));
    let b = lo.map(|a| -a);
    let below = b.is_none_or(|b| b >= a);
    Some(match (zero, below) {
        (false, false) => return None,
        (true, false) => "-0+".to_string(),
        (true, true) if a == 1 && b.is_none() => "-[0-9]+".to_string(),
        (z, true) => {
            let n = natural_range(a as u128, b.map(|b| b as u128)).expect("a <= b");
            if z {
                format!("-0*(?:0|{n})")
            } else {
                format!("-0*{n}")
            }
        }
    })
}

/// `[eE]` and the exponents in `lo..=hi` (`None`: unbounded; not empty),
/// optional when 0 is one of them (the plain decimal).
fn exponent(lo: Option<i64>, hi: Option<i64>) -> String {
    let signs: Vec<String> = [exponent_up(lo, hi), exponent_down(lo, hi)]
        .into_iter()
        .flatten()
        .collect();
    let e = format!("[eE](?:{})", signs.join("|"));
    if lo.is_none_or(|a| a <= 0) && hi.is_none_or(|b| b >= 0) {
        format!("(?:{e})?")
    } else {
        e
    }
}

/// Unsigned numbers (the spellings of the module doc) within `[lo, hi]`,
/// each end inclusive or not; `None` when there is none. `places`: those
/// of the mantissas that take an exponent (including 0 and 1).
fn magnitude(
    lo: (&Dec, bool),
    hi: Option<(&Dec, bool)>,
    places: &RangeInclusive<i64>,
) -> Option<String> {
    let (l, l_incl) = lo;
    if let Some((h, h_incl)) = hi {
        match cmp(l, h) {
            Ordering::Greater => return None,
            Ordering::Equal if !(l_incl && h_incl) => return None,
            _ => {}
        }
    }
    let mut alts = Vec::new();
    let l_normal = normal(l);
    if l_normal.is_none() && l_incl {
        alts.push(ZERO.to_string());
    }
    let h_normal = match hi {
        None => None,
        Some((h, h_incl)) => match normal(h) {
            Some(n) => Some((n, h_incl)),
            None => return any(alts), // only zero
        },
    };
    // Each bound's magnitude, and what digits meet it at that magnitude.
    let lower = (l_normal.as_ref()).map(|n| {
        let side = Side {
            digits: &n.digits,
            strict: !l_incl,
        };
        (n.place, side)
    });
    let upper = (h_normal.as_ref()).map(|(n, incl)| {
        let side = Side {
            digits: &n.digits,
            strict: !incl,
        };
        (n.place, side)
    });
    if lower.is_none() && upper.is_none() {
        alts.push(NONZERO.to_string());
        return any(alts);
    }
    // A mantissa `0.S × 10^place` with an exponent `e` is the number of
    // magnitude `q = place + e`: above the lower bound when `q > qa`, or
    // `q = qa` and `S` meets the bound's digits; so its exponents are those
    // from `qa - place`, plus 1 when `S` fails the lower bound's digits
    // (`fl`), to `qb - place`, minus 1 when it fails the upper bound's
    // (`fh`). One alternative per place and pair of outcomes.
    let outcomes = |side: Option<(i64, Side)>| match side {
        Some(_) => &[false, true][..],
        None => &[false][..],
    };
    for place in places.clone() {
        for &fl in outcomes(lower) {
            for &fh in outcomes(upper) {
                let a = lower.map(|(q, _)| q - place + fl as i64);
                let b = upper.map(|(q, _)| q - place - fh as i64);
                if a.zip(b).is_some_and(|(a, b)| a > b) {
                    continue;
                }
                // What the digits meet: each bound's, or its failure.
                let (mut lows, mut highs) = (Vec::new(), Vec::new());
                if let Some((_, side)) = lower {
                    if fl {
                        highs.push(side.failed());
                    } else {
                        lows.push(side);
                    }
                }
                if let Some((_, side)) = upper {
                    if fh {
                        lows.push(side.failed());
                    } else {
                        highs.push(side);
                    }
                }
                let low = lows.into_iter().reduce(|x, y| x.tighter(y, true));
                let high = highs.into_iter().reduce(|x, y| x.tighter(y, false));
                if let Some(m) = mantissa(place, low, high) {
                    alts.push(format!("{m}{}", exponent(a, b)));
                }
            }
        }
    }
    // Plain decimals of the other places, where the place is the
    // magnitude. Strictly between the bounds' magnitudes, any digits:
    let (first, last) = (*places.start(), *places.end());
    debug_assert!(first <= 1 && last >= 0);
    let (a, b) = (lower.map(|(q, _)| q + 1), upper.map(|(q, _)| q - 1));
    // places last+1.., as integer digit counts;
    let from = a.map_or(last + 1, |a| a.max(last + 1));
    if b.is_none_or(|b| b >= from) {
        let most = b.map_or(String::new(), |b| (b - 1).to_string());
        alts.push(format!(r"[1-9][0-9]{{{},{most}}}(?:\.[0-9]+)?", from - 1));
    }
    // places ..first-1, as counts of zeros after `0.`.
    let to = b.map_or(first - 1, |b| b.min(first - 1));
    if a.is_none_or(|a| a <= to) {
        let most = a.map_or(String::new(), |a| (-a).to_string());
        alts.push(format!(r"0\.0{{{},{most}}}[1-9][0-9]*", -to));
    }
    // At a bound's magnitude, digits compared with the bound's (with both
    // bounds' when they share it).
    if let Some((q, side)) = lower {
        let both = upper.filter(|&(p, _)| p == q).map(|(_, s)| s);
        if !places.contains(&q) {
            alts.extend(mantissa(q, Some(side), both));
        }
    }
    if let Some((q, side)) = upper {
        if !places.contains(&q) && lower.is_none_or(|(p, _)| p != q) {
            alts.extend(mantissa(q, None, Some(side)));
        }
    }
    any(alts)
}

/// `alts` as one alternation, `None` when empty.
fn any(alts: Vec<String>) -> Option<String> {
    (!alts.is_empty()).then(|| format!("(?:{})", alts.join("|")))
}

/// Regex for the JSON numbers within the bounds (see the module doc for
/// which spellings); `None` when no number is.
pub fn range(lo: Option<&Bound>, hi: Option<&Bound>) -> Option<String> {
    range_with(lo, hi, &EXPONENT_PLACES)
}

/// [`range`], with exponents after mantissas of these places.
fn range_with(
    lo: Option<&Bound>,
    hi: Option<&Bound>,
    places: &RangeInclusive<i64>,
) -> Option<String> {
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
        alts.extend(magnitude(lower, hi.map(|b| (&b.mag, b.incl)), places));
    }
    // x <= 0, spelled with '-': magnitudes within [|hi|, |lo|].
    if !lo.is_some_and(Bound::pos) {
        let lower = match hi {
            Some(b) if !b.pos() => (&b.mag, b.incl),
            _ => (&zero, true),
        };
        if let Some(r) = magnitude(lower, lo.map(|b| (&b.mag, b.incl)), places) {
            alts.push(format!("-{r}"));
        }
    }
    any(alts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::full;
    use gcd_core::lexer::{TerminalDfa, DEAD};

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
        for (lo, hi) in cases {
            let re = range(lo.as_ref(), hi.as_ref());
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
    }
    /// Bounds of the kinds schemas use.
    fn typical() -> Vec<(&'static str, Option<Bound>, Option<Bound>)> {
        vec![
            ("[0, 255]", Some(b(0.0, true)), Some(b(255.0, true))),
            ("[0, 1]", Some(b(0.0, true)), Some(b(1.0, true))),
            ("[-90, 90]", Some(b(-90.0, true)), Some(b(90.0, true))),
            ("[1e-3, 1e3]", Some(b(0.001, true)), Some(b(1000.0, true))),
            ("(0, 1)", Some(b(0.0, false)), Some(b(1.0, false))),
            ("[0.5, 0.75]", Some(b(0.5, true)), Some(b(0.75, true))),
            ("[-10.5, -2.25]", Some(b(-10.5, true)), Some(b(-2.25, true))),
            (">= 1", Some(b(1.0, true)), None),
            ("<= 100", None, Some(b(100.0, true))),
            (">= 0", Some(b(0.0, true)), None),
        ]
    }

    /// Whether two DFAs (live states only) have the same language.
    fn same_language(x: &TerminalDfa, y: &TerminalDfa) -> bool {
        let mut seen = std::collections::HashSet::from([(0, 0)]);
        let mut todo = vec![(0, 0)];
        while let Some((p, q)) = todo.pop() {
            if x.is_accepting(p) != y.is_accepting(q) {
                return false;
            }
            for byte in 0..=255u8 {
                match (x.next(p, byte), y.next(q, byte)) {
                    (DEAD, DEAD) => {}
                    (DEAD, _) | (_, DEAD) => return false,
                    next => {
                        if seen.insert(next) {
                            todo.push(next);
                        }
                    }
                }
            }
        }
        true
    }

    /// The DFA regex-automata builds for a bounded number, and the
    /// minimal one the compiler hands the lexer instead: the same
    /// language, and few states.
    #[test]
    fn typical_bounds_take_few_states() {
        for (name, lo, hi) in typical() {
            let re = range(lo.as_ref(), hi.as_ref()).unwrap();
            // Another key than the grammar's, so not the seeded table.
            let raw = TerminalDfa::new(&format!("(?:{re})")).unwrap();
            let min = TerminalDfa::new_minimal(&format!("(?:(?:{re}))")).unwrap();
            assert!(same_language(&raw, &min), "{name}");
            println!("{name}: {} states, {} minimized", raw.len(), min.len());
            assert!(min.len() <= 80, "{name}: {} states", min.len());
        }
    }

    /// What each choice of places costs (`-- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn states_by_places() {
        for places in [1..=1, 0..=3, -2..=3, -16..=17] {
            for (name, lo, hi) in typical() {
                let t = std::time::Instant::now();
                let re = range_with(lo.as_ref(), hi.as_ref(), &places).unwrap();
                let raw = TerminalDfa::new(&format!("(?:{re})")).unwrap();
                let t_raw = t.elapsed();
                let min = TerminalDfa::new_minimal(&format!("(?:(?:{re}))")).unwrap();
                println!(
                    "places {places:?} {name}: regex {} bytes, {} states in {t_raw:?}, {} minimized in {:?}",
                    re.len(),
                    raw.len(),
                    min.len(),
                    t.elapsed() - t_raw
                );
            }
        }
    }
}
