//! Integer ranges as regexes over digit strings.
//!
//! JSON Schema bounds on integers (`minimum`, `maximum`, the exclusive
//! forms) become a regular language of decimal spellings; building it digit
//! by digit keeps the bound exact for any magnitude, where a float
//! comparison would not. The same construction over fixed-width hex digits
//! spells `\uXXXX` escapes for a range of code points.

/// Regex for `width`-digit strings in `base` (leading zeros allowed) whose
/// value lies in `[lo, hi]`. Hex digits match in both cases.
pub fn fixed_range(lo: u128, hi: u128, width: usize, base: u32) -> String {
    debug_assert!(lo <= hi);
    let a = digits(lo, width, base);
    let b = digits(hi, width, base);
    same_len(&a, &b, base)
}

fn digits(mut v: u128, width: usize, base: u32) -> Vec<u32> {
    let mut d = vec![0; width];
    for slot in d.iter_mut().rev() {
        *slot = (v % base as u128) as u32;
        v /= base as u128;
    }
    d
}

/// A character class for digit values `lo..=hi`.
fn class(lo: u32, hi: u32, base: u32) -> String {
    if base == 10 {
        return if lo == hi {
            lo.to_string()
        } else {
            format!("[{lo}-{hi}]")
        };
    }
    // Hex: split into the decimal part and the letter part (both cases).
    let mut s = String::from("[");
    if lo <= 9 {
        let h = hi.min(9);
        s.push_str(&format!("{lo}-{h}"));
    }
    if hi >= 10 {
        let l = lo.max(10);
        let (lc, hc) = (
            char::from_digit(l, 16).unwrap(),
            char::from_digit(hi, 16).unwrap(),
        );
        s.push_str(&format!(
            "{lc}-{hc}{}-{}",
            lc.to_ascii_uppercase(),
            hc.to_ascii_uppercase()
        ));
    }
    s.push(']');
    s
}

fn same_len(a: &[u32], b: &[u32], base: u32) -> String {
    if a.is_empty() {
        return String::new();
    }
    if a[0] == b[0] {
        return format!(
            "{}{}",
            class(a[0], a[0], base),
            same_len(&a[1..], &b[1..], base)
        );
    }
    let rest = a.len() - 1;
    let any = |n: usize| {
        if n == 0 {
            String::new()
        } else {
            format!("{}{{{n}}}", class(0, base - 1, base))
        }
    };
    let a_min = a[1..].iter().all(|&d| d == 0);
    let b_max = b[1..].iter().all(|&d| d == base - 1);
    let mut alts = Vec::new();
    let lo_first = if a_min {
        a[0]
    } else {
        let top = vec![base - 1; rest];
        alts.push(format!(
            "{}{}",
            class(a[0], a[0], base),
            same_len(&a[1..], &top, base)
        ));
        a[0] + 1
    };
    let hi_last = if b_max { b[0] } else { b[0] - 1 };
    if lo_first <= hi_last {
        alts.push(format!("{}{}", class(lo_first, hi_last, base), any(rest)));
    }
    if !b_max {
        let zero = vec![0; rest];
        alts.push(format!(
            "{}{}",
            class(b[0], b[0], base),
            same_len(&zero, &b[1..], base)
        ));
    }
    format!("(?:{})", alts.join("|"))
}

fn decimal_len(v: u128) -> usize {
    v.to_string().len()
}

/// Regex for canonical decimal naturals (no leading zeros) in `[lo, hi]`;
/// `hi = None` is unbounded. `None` when the range is empty.
pub fn natural_range(lo: u128, hi: Option<u128>) -> Option<String> {
    if hi.is_some_and(|h| h < lo) {
        return None;
    }
    let mut alts = Vec::new();
    let lo_len = decimal_len(lo);
    let last_len = hi.map_or(lo_len, decimal_len);
    for len in lo_len..=last_len {
        let floor = if len == 1 {
            0
        } else {
            10u128.pow(len as u32 - 1)
        };
        let ceil = 10u128.checked_pow(len as u32).map_or(u128::MAX, |p| p - 1);
        let l = lo.max(floor);
        let h = hi.map_or(ceil, |h| h.min(ceil));
        if l <= h {
            alts.push(fixed_range(l, h, len, 10));
        }
    }
    if hi.is_none() {
        // Every longer number.
        alts.push(format!("[1-9][0-9]{{{lo_len},}}"));
    }
    Some(format!("(?:{})", alts.join("|")))
}

/// Integers written with an exponent, where that is certain: no fraction
/// and any exponent, or at most 16 fraction digits and an exponent of at
/// least 16 (how serializers print large integral floats, `1.5e+52`).
pub const EXPONENT_INTEGER: &str =
    r"-?[1-9](?:[eE]\+?[0-9]+|\.[0-9]{1,16}[eE]\+?0*(?:1[6-9]|[2-9][0-9]|[1-9][0-9]{2,}))";

/// Integers as plain digits: what serde_json reads into Rust integer
/// types (`1.0`, `1e5` and `-0` are floats to it).
pub const PLAIN_INTEGER: &str = r"(?:0|-?[1-9][0-9]*)";

/// [`PLAIN_INTEGER`] spellings of the integers in `[lo, hi]`.
pub fn plain_integer_range(lo: Option<i128>, hi: Option<i128>) -> Option<String> {
    let alts = digit_alternatives(lo, hi)?;
    Some(format!("(?:{})", alts.join("|")))
}

/// Regex for the JSON spellings of integers in `[lo, hi]` (`None` =
/// unbounded): canonical digits, `-0` for zero, and an optional `.0…`
/// fraction (JSON Schema counts `1.0` as an integer). `None` if empty.
pub fn integer_range(lo: Option<i128>, hi: Option<i128>) -> Option<String> {
    let mut alts = digit_alternatives(lo, hi)?;
    // `-0` is zero.
    if lo.is_none_or(|l| l <= 0) && hi.is_none_or(|h| h >= 0) {
        alts.push("-0".into());
    }
    Some(format!("(?:{})(?:\\.0+)?", alts.join("|")))
}

/// Canonical digits of the integers in `[lo, hi]`, as alternatives;
/// `None` if the range is empty.
fn digit_alternatives(lo: Option<i128>, hi: Option<i128>) -> Option<Vec<String>> {
    if let (Some(l), Some(h)) = (lo, hi) {
        if l > h {
            return None;
        }
    }
    let mut alts = Vec::new();
    // Non-negative part.
    if hi.is_none_or(|h| h >= 0) {
        let l = lo.map_or(0, |l| l.max(0)) as u128;
        if let Some(r) = natural_range(l, hi.map(|h| h as u128)) {
            alts.push(r);
        }
    }
    // Negative part: magnitudes in [max(1, -hi), -lo].
    if lo.is_none_or(|l| l < 0) {
        let mag_lo = hi.map_or(1, |h| if h < 0 { (-h) as u128 } else { 1 });
        let mag_hi = lo.map(|l| (-l) as u128);
        if let Some(r) = natural_range(mag_lo, mag_hi) {
            alts.push(format!("-{r}"));
        }
    }
    (!alts.is_empty()).then_some(alts)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Whole-string matcher for tests.
    pub(crate) fn full(re: &str) -> impl Fn(&str) -> bool {
        let r = regex_automata::dfa::regex::Regex::new(&format!("^(?:{re})$")).unwrap();
        move |s: &str| r.is_match(s)
    }

    #[test]
    fn plain_integer_ranges_are_digits_only() {
        let re = full(&plain_integer_range(Some(-300), Some(255)).unwrap());
        for ok in ["0", "255", "-300", "-1", "17"] {
            assert!(re(ok), "{ok}");
        }
        for bad in ["-0", "1.0", "256", "-301", "01", "1e2", "+1"] {
            assert!(!re(bad), "{bad}");
        }
        let any = full(PLAIN_INTEGER);
        assert!(any("-12345678901234567890") && !any("-0") && !any("1.0"));
    }

    #[test]
    fn integer_ranges_match_exactly() {
        let cases: &[(Option<i128>, Option<i128>)] = &[
            (Some(0), Some(255)),
            (Some(-17), Some(42)),
            (Some(1), None),
            (None, Some(-3)),
            (Some(100), Some(100)),
            (Some(7), Some(1234)),
            (None, Some(99)),
            (Some(-1000), Some(-10)),
        ];
        for &(lo, hi) in cases {
            let m = full(&integer_range(lo, hi).unwrap());
            for v in -1500i128..1500 {
                let inside = lo.is_none_or(|l| v >= l) && hi.is_none_or(|h| v <= h);
                assert_eq!(m(&v.to_string()), inside, "{v} in {lo:?}..{hi:?}");
            }
            // Non-canonical spellings are never accepted; `.0` keeps the value.
            assert!(!m("007"));
            let zero_in = lo.is_none_or(|l| l <= 0) && hi.is_none_or(|h| h >= 0);
            assert_eq!(m("-0"), zero_in);
            assert_eq!(m("0.00"), zero_in);
            assert!(!m("1.5"));
        }
        assert!(integer_range(Some(5), Some(4)).is_none());
    }

    #[test]
    fn hex_ranges() {
        let m = full(&fixed_range(0x00e9, 0x2028, 4, 16));
        for v in [0x00e8u32, 0x00e9, 0x00ff, 0x1000, 0x2028, 0x2029] {
            let inside = (0x00e9..=0x2028).contains(&v);
            assert_eq!(m(&format!("{v:04x}")), inside, "{v:x}");
            assert_eq!(m(&format!("{v:04X}")), inside, "{v:X}");
        }
    }
}
