//! Numbers with an exponent under `minimum`/`maximum`/`exclusive*`: the
//! grammar accepts a spelling exactly when its value is within the bounds
//! (by exact decimal arithmetic, written here independently of gcd) and
//! the spelling is one gcd documents (see gcd-schema's `decimal` module):
//! plain, a zero mantissa, a mantissa in `[0.1, 1000)`, or a number of a
//! sign the bounds leave free.

mod common;

use std::cmp::Ordering;

use common::Acceptor;
use gcd_schema::{compile, Escapes, Integers, Options, Whitespace};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

/// A JSON number's exact value: its sign, and unless it is zero its
/// decimal magnitude `q` and significant digits `s` (`0.s × 10^q`, `s`
/// without leading or trailing zeros).
#[derive(Clone, Debug)]
struct Exact {
    neg: bool,
    nonzero: Option<(i64, Vec<u8>)>,
}

/// A spelling's parts: the value, whether it has an exponent, and the
/// place of its mantissa's first nonzero digit (`None`: a zero mantissa).
struct Spelling {
    value: Exact,
    exponent: bool,
    place: Option<i64>,
}

/// Reads JSON number text; exponents saturate at ±10^12, far beyond any
/// magnitude that matters here.
fn read(text: &str) -> Spelling {
    let (neg, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let e: i64 = exp.map_or(0, |x| {
        let (sign, digits) = match x.as_bytes()[0] {
            b'-' => (-1, &x[1..]),
            b'+' => (1, &x[1..]),
            _ => (1, x),
        };
        let digits = digits.trim_start_matches('0');
        sign * if digits.len() > 12 {
            10i64.pow(12)
        } else {
            digits.parse::<i64>().unwrap_or(0)
        }
    });
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
    let (value, place) = match digits.iter().position(|&d| d != 0) {
        None => (Exact { neg, nonzero: None }, None),
        Some(lead) => {
            let mut s = digits[lead..].to_vec();
            while s.last() == Some(&0) {
                s.pop();
            }
            let place = int.len() as i64 - lead as i64;
            let value = Exact {
                neg,
                nonzero: Some((place + e, s)),
            };
            (value, Some(place))
        }
    };
    Spelling {
        value,
        exponent: exp.is_some(),
        place,
    }
}

/// Compares two exact values.
fn compare(a: &Exact, b: &Exact) -> Ordering {
    let sign = |x: &Exact| match (&x.nonzero, x.neg) {
        (None, _) => 0,
        (Some(_), false) => 1,
        (Some(_), true) => -1,
    };
    let by_sign = sign(a).cmp(&sign(b));
    let (Some((qa, sa)), Some((qb, sb)), Ordering::Equal) = (&a.nonzero, &b.nonzero, by_sign)
    else {
        return by_sign;
    };
    let n = sa.len().max(sb.len());
    let pad = |s: &[u8]| {
        (0..n)
            .map(|i| s.get(i).copied().unwrap_or(0))
            .collect::<Vec<_>>()
    };
    let magnitude = qa.cmp(qb).then_with(|| pad(sa).cmp(&pad(sb)));
    if a.neg {
        magnitude.reverse()
    } else {
        magnitude
    }
}

/// Bounds as the schema states them: value text and whether exclusive.
#[derive(Clone, Debug)]
struct Bounds {
    lo: Option<(String, bool)>,
    hi: Option<(String, bool)>,
}

impl Bounds {
    fn schema(&self) -> Value {
        let mut s = json!({"type": "number"});
        let number = |t: &str| serde_json::from_str::<Value>(t).unwrap();
        for (b, incl, excl) in [
            (&self.lo, "minimum", "exclusiveMinimum"),
            (&self.hi, "maximum", "exclusiveMaximum"),
        ] {
            if let Some((t, exclusive)) = b {
                s[if *exclusive { excl } else { incl }] = number(t);
            }
        }
        s
    }

    /// Whether the grammar must accept `text`.
    fn expected(&self, text: &str) -> bool {
        let sp = read(text);
        let v = &sp.value;
        let bound = |t: &str| read(&serde_json::from_str::<Value>(t).unwrap().to_string()).value;
        let inside = self.lo.as_ref().is_none_or(|(t, excl)| {
            let c = compare(v, &bound(t));
            c.is_gt() || (c.is_eq() && !excl)
        }) && self.hi.as_ref().is_none_or(|(t, excl)| {
            let c = compare(v, &bound(t));
            c.is_lt() || (c.is_eq() && !excl)
        });
        // Numbers of a sign that no bound constrains: positive ones with no
        // maximum and no positive minimum, and so on.
        let zero = Exact {
            neg: false,
            nonzero: None,
        };
        let free = match (&v.nonzero, v.neg) {
            (None, _) => true,
            (Some(_), false) => {
                self.hi.is_none()
                    && (self.lo.as_ref()).is_none_or(|(t, _)| compare(&bound(t), &zero).is_le())
            }
            (Some(_), true) => {
                self.lo.is_none()
                    && (self.hi.as_ref()).is_none_or(|(t, _)| compare(&bound(t), &zero).is_ge())
            }
        };
        let spelled = !sp.exponent || sp.place.is_none_or(|p| (0..=3).contains(&p)) || free;
        inside && spelled
    }
}

fn grammar(b: &Bounds) -> Acceptor {
    let options = Options::default()
        .whitespace(Whitespace::Json)
        .escapes(Escapes::Any)
        .integers(Integers::Json);
    Acceptor::new(compile(&b.schema(), &options).expect("compiles"))
}

/// Bound values: some typical, some at the edges of what gcd reads exactly.
const BOUNDS: &[&str] = &[
    "0",
    "1",
    "255",
    "-90",
    "90",
    "0.001",
    "1000",
    "0.5",
    "0.75",
    "-10.5",
    "-2.25",
    "12.5",
    "99.99",
    "100",
    "0.1",
    "1e20",
    "-1e20",
    "3.3e-7",
    "1.2784086961402516e16",
    "-0.05",
    "65535",
    "0.3",
];

fn random_bound(rng: &mut StdRng) -> String {
    if rng.random_bool(0.6) {
        return BOUNDS[rng.random_range(0..BOUNDS.len())].to_string();
    }
    let digits: u64 = rng.random_range(1..10_000);
    let x = digits as f64 * 10f64.powi(rng.random_range(-8..8));
    let x = if rng.random_bool(0.3) { -x } else { x };
    serde_json::Number::from_f64(x).unwrap().to_string()
}

fn random_bounds(rng: &mut StdRng) -> Bounds {
    loop {
        let mut side = || {
            rng.random_bool(0.75)
                .then(|| (random_bound(rng), rng.random_bool(0.3)))
        };
        let mut b = Bounds {
            lo: side(),
            hi: side(),
        };
        // Sometimes bounds with the same digits (`0.25` and `250`).
        if let (Some((l, _)), true) = (&b.lo, rng.random_bool(0.15)) {
            let x: f64 = l.parse::<f64>().unwrap() * 10f64.powi(rng.random_range(0..4));
            let t = serde_json::Number::from_f64(x).unwrap().to_string();
            b.hi = Some((t, rng.random_bool(0.5)));
        }
        let value = |t: &str| read(&serde_json::from_str::<Value>(t).unwrap().to_string()).value;
        let empty = match (&b.lo, &b.hi) {
            (None, None) => true,
            (Some((l, le)), Some((h, he))) => match compare(&value(l), &value(h)) {
                Ordering::Greater => true,
                Ordering::Equal => *le || *he,
                Ordering::Less => false,
            },
            _ => false,
        };
        if !empty {
            return b;
        }
    }
}

/// `0.s × 10^place` written with that place (`s` nonempty), times `10^e`.
fn spell(rng: &mut StdRng, neg: bool, s: &[u8], place: i64, e: i64) -> String {
    let digits: String = s.iter().map(|d| char::from(b'0' + d)).collect();
    let mut text = String::from(if neg { "-" } else { "" });
    if place >= 1 {
        let p = place as usize;
        let padded = format!("{digits:0<p$}");
        text.push_str(&padded[..p]);
        if padded.len() > p {
            text.push('.');
            text.push_str(&padded[p..]);
        }
    } else {
        text.push_str("0.");
        text.push_str(&"0".repeat(-place as usize));
        text.push_str(&digits);
    }
    if e == 0 && rng.random_bool(0.3) {
        return text;
    }
    text.push(if rng.random_bool(0.7) { 'e' } else { 'E' });
    match (e < 0, rng.random_range(0..3)) {
        (true, _) => text.push('-'),
        (false, 0) => text.push('+'),
        (false, 1) if e == 0 => text.push('-'),
        _ => {}
    }
    text.push_str(&"0".repeat(rng.random_range(0..4usize).saturating_sub(1)));
    text.push_str(&e.abs().to_string());
    text
}

/// Spellings near a bound (its digits shifted to other places, an
/// exponent compensating, a digit changed or added) and random ones.
fn random_spelling(rng: &mut StdRng, b: &Bounds) -> String {
    let near: Vec<Exact> = [&b.lo, &b.hi]
        .into_iter()
        .flatten()
        .map(|(t, _)| read(&serde_json::from_str::<Value>(t).unwrap().to_string()).value)
        .collect();
    let pick = rng.random_range(0..near.len() + 2);
    if let Some(Exact {
        neg,
        nonzero: Some((q, s)),
    }) = near.get(pick)
    {
        let mut s = s.clone();
        match rng.random_range(0..5) {
            0 => *s.last_mut().unwrap() = rng.random_range(0..10),
            1 => s.push(rng.random_range(0..10)),
            2 if s.len() > 1 => {
                s.pop();
            }
            3 => s.extend([0, 0]),
            _ => {}
        }
        if s[0] == 0 {
            s[0] = 1;
        }
        let place = rng.random_range(-2..=5);
        let e = q - place + [-1, 0, 0, 0, 1][rng.random_range(0..5)];
        let neg = *neg != rng.random_bool(0.1);
        return spell(rng, neg, &s, place, e);
    }
    // A random number, zero one time in ten.
    let neg = rng.random_bool(0.4);
    if rng.random_bool(0.1) {
        let zeros = "0".repeat(rng.random_range(0..3));
        let frac = if zeros.is_empty() {
            String::new()
        } else {
            format!(".{zeros}")
        };
        let e = rng.random_range(-5..5);
        return spell(rng, neg, &[], 1, e).replacen("0", &format!("0{frac}"), 1);
    }
    let len = rng.random_range(1..6);
    let mut s: Vec<u8> = (0..len).map(|_| rng.random_range(0..10)).collect();
    s[0] = rng.random_range(1..10);
    let place = rng.random_range(-3..=6);
    let e = match rng.random_range(0..10) {
        0 => [308, -308, 400, -400, 99_999][rng.random_range(0..5)],
        _ => rng.random_range(-12..=12),
    };
    spell(rng, neg, &s, place, e)
}

#[test]
fn the_spelling_reference_reads_exactly() {
    let v = |t: &str| read(t).value;
    assert!(compare(&v("2.55e2"), &v("255")).is_eq());
    assert!(compare(&v("-0.0e-3"), &v("0")).is_eq());
    assert!(compare(&v("1e-05"), &v("0.00001")).is_eq());
    assert!(compare(&v("1.2784086961402516e+16"), &v("12784086961402516")).is_eq());
    assert!(compare(&v("-1e3"), &v("-999.9")).is_lt());
    assert!(compare(&v("1E+0002"), &v("99.5")).is_gt());
    assert_eq!(read("0.05e2").place, Some(-1));
    assert_eq!(read("123.4e0").place, Some(3));
    assert_eq!(read("-0.000e7").place, None);
}

/// The examples: what Python's `json.dumps` writes for floats.
#[test]
fn python_float_spellings_under_bounds() {
    let byte = json!({"type": "number", "minimum": 0, "maximum": 255});
    common::check(
        byte,
        &[
            "2.2250738585072014e-308",
            "1e-05",
            "2.55e+2",
            "2.55E2",
            "25.5e1",
            "0.255e3",
            "0e5",
            "-0.0e-3",
            "5e-324",
            "1e-999999999999",
        ],
        &[
            "2.5500000000000001e2",
            "-1e-05",
            "2.56e2",
            "1e3",
            "1e+0003",
            "-2.2250738585072014e-308",
        ],
    );
    let big = "1.2784086961402516e+16";
    let at = |max: Value| json!({"type": "number", "minimum": 0, "maximum": max});
    common::check(
        at(json!(1.2784086961402516e16)),
        &[big, "1e16"],
        &["1.3e16"],
    );
    common::check(
        json!({"type": "number", "exclusiveMaximum": 1.2784086961402516e16}),
        &["1.2784086961402515e16", "-1e300"],
        &[big, "1.2784086961402516000e16"],
    );
    common::check(at(json!(1.2e16)), &["1.2e16", "1.19e+16"], &[big]);
    common::check(at(json!(1e17)), &[big], &["1.0000000000000001e17"]);
    // A lower bound only: large exponents are fine.
    common::check(
        json!({"type": "number", "minimum": 0.5}),
        &["5e-1", "1e308", "1.5E+999999", "0.5e0", "500e-3"],
        &["4.9e-1", "1e-5", "-1e308", "0.05e1"],
    );
}

/// Documented refusals: mantissas outside `[0.1, 1000)` with an exponent
/// under a bound that constrains their sign, though their value is in.
#[test]
fn mantissas_outside_the_places_are_refused() {
    common::check(
        json!({"type": "number", "minimum": 0, "maximum": 255}),
        &["255", "0.05", "999e-1"],
        &["1000e-3", "0.05e1", "12345e-2"],
    );
    // Where the sign alone decides, every mantissa.
    common::check(
        json!({"type": "number", "minimum": 0}),
        &["1000e-3", "0.0005e1", "12345678901234567890e-30"],
        &["-1000e-3"],
    );
}

/// Bounded integers keep their documented spellings: digits (and `.0…`
/// under `Integers::Json`), no exponent.
#[test]
fn bounded_integers_take_no_exponent() {
    let s = json!({"type": "integer", "minimum": 0, "maximum": 255});
    common::check(s, &["255", "7", "7.0"], &["2.55e2", "1e2", "7.5"]);
}

/// Random bounds and spellings, each checked against the exact reference
/// through the compiled grammar (matcher and recognizer).
#[test]
fn random_spellings_agree_with_exact_values() {
    let mut rng = StdRng::seed_from_u64(7);
    let (mut checked, mut accepted) = (0, 0);
    for _ in 0..120 {
        let b = random_bounds(&mut rng);
        let g = grammar(&b);
        for _ in 0..150 {
            let text = random_spelling(&mut rng, &b);
            let want = b.expected(&text);
            assert_eq!(g.accepts(&text), want, "{text} under {}", b.schema());
            checked += 1;
            accepted += want as usize;
        }
    }
    println!("{checked} spellings, {accepted} accepted");
    // Both verdicts are well represented.
    assert!(
        accepted * 5 > checked && accepted * 5 < checked * 4,
        "{accepted} of {checked}"
    );
}
