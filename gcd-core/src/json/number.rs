//! JSON numbers as regexes: integer ranges digit by digit, and the finite
//! floats serde_json reads back.
//!
//! Bounds become a regular language of decimal spellings; building it digit
//! by digit keeps a bound exact for any magnitude, where a float comparison
//! would not. The same construction over fixed-width hex digits spells
//! `\uXXXX` escapes for a range of code points. Both typed front ends (the
//! derive and gcd-schema) take their number terminals from here, so one
//! construction is tested and trusted.

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
            char::from_digit(l, 16).expect("a hex digit: 10 <= l <= hi <= 15"),
            char::from_digit(hi, 16).expect("a hex digit: hi <= 15"),
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

/// A regex for the decimal integers in `lo..=hi`, as JSON writes them: no
/// leading zeros, `-` only on negatives (serde_json reads `-0` as a float,
/// which no integer type accepts).
pub fn int_range_regex(lo: i128, hi: i128) -> String {
    assert!(lo <= hi);
    plain_integer_range(Some(lo), Some(hi)).expect("a non-empty range")
}

/// JSON numbers that serde_json reads as a finite `f64`, so that reading a
/// float can never fail with "number out of range". "Finite" is not a
/// regular property of the text in general (it weighs the digit count
/// against the exponent), so this is a regular subset: every number with at
/// most 308 integer digits and no positive exponent, every number with a
/// negative exponent, and with a positive exponent `k` integer digits
/// (k <= 17) and an exponent up to `308 - k`, plus the one-digit mantissas
/// up to `1.7976931348623157e308` (`f64::MAX`). That covers everything
/// serde_json writes for a finite float (at most 17 significant digits,
/// scientific beyond 1e16); it refuses some exotic spellings serde_json
/// would accept, such as `17e307` or a 400-digit integer.
pub fn finite_number_regex() -> String {
    // f64::MAX = 1.7976931348623157e308.
    finite_float_regex(308, 17, (b'1', "7976931348623157"))
}

/// Like [`finite_number_regex`], for `f32` (`f32::MAX` =
/// `3.4028235e38`, and serde_json writes at most 9 significant digits):
/// at most 38 integer digits without a positive exponent, any negative
/// exponent, `k <= 9` integer digits with an exponent up to `38 - k`, and
/// one-digit mantissas up to `3.4028235e38`.
pub fn finite_f32_number_regex() -> String {
    finite_float_regex(38, 9, (b'3', "4028235"))
}

/// The regular subset of finite floats described at
/// [`finite_number_regex`], for a type whose largest value is
/// `lead.max_fraction × 10^max_exp` and whose shortest spellings have at
/// most `digits` significant digits.
fn finite_float_regex(max_exp: usize, digits: usize, (lead, max_fraction): (u8, &str)) -> String {
    let frac = r"(?:\.[0-9]+)?";
    let mut alts = vec![format!(
        r"(?:0|[1-9][0-9]{{0,{}}}){frac}(?:[eE]-[0-9]+)?",
        max_exp - 1
    )];
    for k in 1..=digits {
        let int = if k == 1 {
            "[0-9]".to_string()
        } else {
            format!("[1-9][0-9]{{{}}}", k - 1)
        };
        let exp = int_range_regex(0, (max_exp - k) as i128);
        alts.push(format!(r"{int}{frac}[eE]\+?0*{exp}"));
    }
    // Mantissas with one integer digit up to the largest value, at `max_exp`.
    let top = format!(r"{}(?:\.{})?", lead as char, fraction_at_most(max_fraction));
    let mantissa = if lead > b'1' {
        format!("(?:[0-{}]{frac}|{top})", (lead - 1) as char)
    } else {
        top
    };
    alts.push(format!(r"{mantissa}[eE]\+?0*{max_exp}"));
    format!("-?(?:{})", alts.join("|"))
}

/// Digit strings `d` with `0.d <= 0.c` (non-empty).
fn fraction_at_most(c: &str) -> String {
    let c = c.as_bytes();
    let mut alts = Vec::new();
    for i in 0..c.len() {
        let prefix = std::str::from_utf8(&c[..i]).expect("digits");
        if c[i] > b'0' {
            alts.push(format!("{prefix}[0-{}][0-9]*", (c[i] - 1) as char));
        }
        if i > 0 {
            alts.push(prefix.to_string());
        }
    }
    alts.push(format!("{}0*", std::str::from_utf8(c).expect("digits")));
    format!("(?:{})", alts.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_automata::meta::Regex;

    /// Whole-string matcher for tests.
    fn full(re: &str) -> impl Fn(&str) -> bool {
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

    fn matches(re: &Regex, s: &str) -> bool {
        re.find(s)
            .is_some_and(|m| m.start() == 0 && m.end() == s.len())
    }

    #[test]
    fn finite_f32_numbers_cover_what_serde_json_writes() {
        let re = Regex::new(&format!("^(?:{})$", finite_f32_number_regex())).unwrap();
        let mut x = 0x9E37_79B9u32;
        let mut floats = vec![f32::MAX, f32::MIN, f32::MIN_POSITIVE, 1e38, 1e16, 0.1, -0.0];
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            floats.push(f32::from_bits(x));
        }
        for f in floats.into_iter().filter(|f| f.is_finite()) {
            let text = serde_json::to_string(&f).unwrap();
            assert!(matches(&re, &text), "{text}");
        }
        for (text, ok) in [
            ("3.4028235e38", true),
            ("3.4028236e38", false),
            ("3.5e38", false),
            ("1e39", false),
            ("340282356779733661637539395458142568448", false),
            ("99999999999999999999999999999999999999", true),
            ("123456789e29", true),
            ("123456789e30", false),
            ("2.99e+38", true),
            ("1e-999", true),
        ] {
            assert_eq!(matches(&re, text), ok, "{text}");
            if ok {
                let v = serde_json::from_str::<f32>(text);
                assert!(v.as_ref().is_ok_and(|v| v.is_finite()), "{text}: {v:?}");
            }
        }
    }

    #[test]
    fn finite_numbers_cover_what_serde_json_writes() {
        let re = Regex::new(&format!("^(?:{})$", finite_number_regex())).unwrap();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut floats = vec![
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            5e-324,
            1e308,
            1e16,
            1e15,
            0.1,
            -0.0,
            123456.789,
        ];
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            floats.push(f64::from_bits(x));
        }
        for f in floats.into_iter().filter(|f| f.is_finite()) {
            let text = serde_json::to_string(&f).unwrap();
            assert!(matches(&re, &text), "{text}");
        }
        for (text, ok) in [
            ("1e308", true),
            ("1.7976931348623157e308", true),
            ("1.7976931348623158e308", false),
            ("1.8e308", false),
            ("2e308", false),
            ("1e309", false),
            ("10e306", true),
            ("0.5e-999", true),
            ("12345678901234567e291", true),
            ("12345678901234567e292", false),
        ] {
            assert_eq!(matches(&re, text), ok, "{text}");
            if ok {
                assert!(serde_json::from_str::<f64>(text).is_ok(), "{text}");
            }
        }
        for bad in ["1e400", "-1e309", "9e308"] {
            assert!(
                serde_json::from_str::<f64>(bad).is_err() && !matches(&re, bad),
                "{bad}"
            );
        }
    }

    #[test]
    fn integer_ranges_are_exact() {
        let ranges: &[(i128, i128)] = &[
            (0, 255),
            (1, 10),
            (-128, 127),
            (0, 0),
            (-5, -1),
            (7, 7),
            (99, 101),
            (-1000, 1000),
            (123, 4567),
            (0, 9),
            (10, 99),
            (-32768, 32767),
            (19, 21),
            (100, 100),
            (-100, -99),
        ];
        for &(lo, hi) in ranges {
            let re = Regex::new(&format!("^{}$", int_range_regex(lo, hi))).unwrap();
            for x in (lo - 50).max(-40000)..=(hi + 50).min(40000) {
                assert_eq!(
                    matches(&re, &x.to_string()),
                    (lo..=hi).contains(&x),
                    "{x} in {lo}..={hi}"
                );
            }
            assert!(!matches(&re, "01") && !matches(&re, "+1") && !matches(&re, "1.0"));
            assert!(!matches(&re, "-0"));
        }
        for (lo, hi) in [(i64::MIN as i128, i64::MAX as i128), (0, u64::MAX as i128)] {
            let re = Regex::new(&format!("^{}$", int_range_regex(lo, hi))).unwrap();
            for x in [lo, hi, lo + 1, hi - 1, 0] {
                assert!(matches(&re, &x.to_string()), "{x}");
            }
            assert!(!matches(&re, &(hi + 1).to_string()) && !matches(&re, &(lo - 1).to_string()));
        }
    }
}
