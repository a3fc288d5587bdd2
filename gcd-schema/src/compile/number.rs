//! `number`/`integer` keywords (bounds, `multipleOf`, the
//! [`FINITE`] marker) → the regex of the allowed numbers. Separate because
//! bounds are spelled through gcd-core's `json::number` (integers) and `decimal`
//! (fractions), each with its own limits.

use std::collections::BTreeSet;

use serde_json::{Map, Number, Value};

use super::{Compiler, R};
use crate::decimal;
use crate::error::SchemaError;
use crate::node::*;
use crate::options::Integers;
use gcd_core::json::number as numeric;

/// gcd's keyword for "finite as this Rust float type": `"f32"` or `"f64"`.
/// `schema_for` (the schemars bridge) writes it in place of schemars'
/// `format: "float"` / `"double"`, which JSON Schema treats as annotations
/// (and so does [`crate::compile`]): serde_json refuses a number too large
/// for the type, or reads it as infinity. The numbers allowed are those of
/// gcd-core's finite-float regexes (what `#[derive(Constrained)]` uses),
/// intersected with the other numeric keywords.
pub(crate) const FINITE: &str = "x-gcd-finite";

/// Every explicit bound is below `10^SMALL_DIGITS` in magnitude
/// (`decimal::parse` reads at most 30 integer digits, integer bounds
/// beyond 1e30 are refused): numbers with more integer digits lie beyond
/// every bound.
const SMALL_DIGITS: u32 = 31;

/// The float type a [`FINITE`] marker names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Finite {
    F32,
    F64,
}

impl Finite {
    fn read(m: &Map<String, Value>, ptr: &str) -> R<Option<Finite>> {
        match m.get(FINITE) {
            None => Ok(None),
            Some(v) => match v.as_str() {
                Some("f32") => Ok(Some(Finite::F32)),
                Some("f64") => Ok(Some(Finite::F64)),
                _ => Err(SchemaError::invalid(
                    Some(FINITE),
                    ptr,
                    "must be \"f32\" or \"f64\"",
                )),
            },
        }
    }

    /// Every spelling serde_json reads as a finite float of this type
    /// (gcd-core's regular subset).
    fn regex(self) -> String {
        match self {
            Finite::F32 => gcd_core::json::number::finite_f32_number_regex(),
            Finite::F64 => gcd_core::json::number::finite_number_regex(),
        }
    }

    /// The most integer digits of a number without exponent in
    /// [`Finite::regex`] (all of them, below `10^digits`).
    fn max_digits(self) -> u32 {
        match self {
            Finite::F32 => 38,
            Finite::F64 => 308,
        }
    }

    /// Unsigned integers with more than [`SMALL_DIGITS`] digits that
    /// [`Finite::regex`] accepts written plainly.
    fn large(self) -> String {
        format!("[1-9][0-9]{{{SMALL_DIGITS},{}}}", self.max_digits() - 1)
    }
}

/// A bounded number's regex as a scalar, with its minimal DFA put in
/// gcd-core's process-wide cache of terminal DFAs, where the grammar's
/// compilation finds it: determinization alone leaves two to four times
/// the states, one per alternative and exponent.
fn bounded(regex: String) -> Scalar {
    // An error here is the compilation's to report, with its context.
    let _ = gcd_core::lexer::TerminalDfa::new_minimal(&regex);
    Scalar::some(regex)
}

/// `alts` as one alternation, `None` when empty.
fn any_of(alts: Vec<String>) -> Option<Scalar> {
    (!alts.is_empty()).then(|| Scalar::some(format!("(?:{})", alts.join("|"))))
}

impl Compiler<'_> {
    pub(super) fn number_part(
        &self,
        m: &Map<String, Value>,
        ptr: &str,
        mut int_only: bool,
    ) -> R<Option<Scalar>> {
        if let Some(k) = m.get("multipleOf") {
            let x = k
                .as_f64()
                .ok_or_else(|| SchemaError::invalid(Some("multipleOf"), ptr, "must be a number"))?;
            if x == 1.0 || (int_only && x.fract() == 0.0 && x > 0.0 && x < 2.0) {
                int_only = true;
            } else {
                return Err(SchemaError::unsupported(
                    "multipleOf",
                    ptr,
                    format!("multipleOf {x}"),
                ));
            }
        }
        // (keyword, value, is_min, exclusive) for each bound present.
        let mut bounds = Vec::new();
        let excl_bool = |k: &str| m.get(k).and_then(Value::as_bool).unwrap_or(false);
        for (k, is_min) in [
            ("minimum", true),
            ("maximum", false),
            ("exclusiveMinimum", true),
            ("exclusiveMaximum", false),
        ] {
            let Some(b) = m.get(k) else { continue };
            if b.is_boolean() {
                continue; // draft-04 modifier, read with minimum/maximum
            }
            let x = b
                .as_number()
                .ok_or_else(|| SchemaError::invalid(Some(k), ptr, "must be a number"))?;
            let exclusive = k.starts_with("exclusive")
                || excl_bool(if is_min {
                    "exclusiveMinimum"
                } else {
                    "exclusiveMaximum"
                });
            bounds.push((k, x, is_min, exclusive));
        }
        let plain = self.integers == Integers::Plain;
        let finite = Finite::read(m, ptr)?;
        if let (true, false, Some(f)) = (bounds.is_empty(), int_only, finite) {
            return Ok(Some(Scalar::some(f.regex())));
        }
        // Below, with a `finite` marker: the bounded language within
        // ±10^SMALL_DIGITS (every such value is finite, exponent spellings
        // included), plus, on a side without a bound, the numbers without
        // an exponent of SMALL_DIGITS+1..=max_digits integer digits (those
        // of the finite regex, beyond every bound on the other side).
        // Integers are spelled without an exponent.
        if bounds.is_empty() && finite.is_none() {
            return Ok(Some(if int_only && plain {
                Scalar::some(numeric::PLAIN_INTEGER.to_string())
            } else if int_only {
                let digits = numeric::integer_range(None, None).expect("unbounded is not empty");
                Scalar::some(format!("(?:{digits}|{})", numeric::EXPONENT_INTEGER))
            } else {
                Scalar::full(ANY_NUMBER)
            }));
        }
        if int_only {
            let (mut lo, mut hi): (Option<i128>, Option<i128>) = (None, None);
            for &(k, x, is_min, exclusive) in &bounds {
                let Some(bound) = int_bound(x, is_min, exclusive) else {
                    return Err(SchemaError::unsupported(k, ptr, "bound too large"));
                };
                if is_min {
                    lo = Some(lo.map_or(bound, |l| l.max(bound)));
                } else {
                    hi = Some(hi.map_or(bound, |h| h.min(bound)));
                }
            }
            let spell = |lo, hi| {
                if plain {
                    numeric::plain_integer_range(lo, hi)
                } else {
                    numeric::integer_range(lo, hi)
                }
            };
            let Some(f) = finite else {
                return Ok(spell(lo, hi).map(Scalar::some));
            };
            let small = 10i128.pow(SMALL_DIGITS) - 1;
            debug_assert!(lo.is_none_or(|l| l > -small) && hi.is_none_or(|h| h < small));
            let mut alts: Vec<String> =
                spell(Some(lo.unwrap_or(-small)), Some(hi.unwrap_or(small)))
                    .into_iter()
                    .collect();
            let zeros = if plain { "" } else { r"(?:\.0+)?" };
            if hi.is_none() {
                alts.push(format!("{}{zeros}", f.large()));
            }
            if lo.is_none() {
                alts.push(format!("-{}{zeros}", f.large()));
            }
            return Ok(any_of(alts));
        }
        // Non-integer numbers: the tightest bound on each side.
        let (mut lo, mut hi): (Option<decimal::Bound>, Option<decimal::Bound>) = (None, None);
        for &(k, x, is_min, exclusive) in &bounds {
            let Some((neg, mag)) = decimal::parse(x) else {
                return Err(SchemaError::unsupported(
                    k,
                    ptr,
                    "bound too large or too precise",
                ));
            };
            let b = decimal::Bound {
                neg,
                mag,
                incl: !exclusive,
            };
            let slot = if is_min { &mut lo } else { &mut hi };
            let tighter = match slot.as_ref() {
                None => true,
                Some(old) => {
                    let c = decimal::signed_cmp(&b, old);
                    if is_min {
                        c.is_gt() || (c.is_eq() && !b.incl)
                    } else {
                        c.is_lt() || (c.is_eq() && !b.incl)
                    }
                }
            };
            if tighter {
                *slot = Some(b);
            }
        }
        let Some(f) = finite else {
            return Ok(decimal::range(lo.as_ref(), hi.as_ref()).map(bounded));
        };
        let small = |neg| decimal::Bound {
            neg,
            mag: decimal::Dec {
                int: 10u128.pow(SMALL_DIGITS),
                frac: vec![],
            },
            incl: false,
        };
        let (lo_small, hi_small) = (
            lo.clone().unwrap_or_else(|| small(true)),
            hi.clone().unwrap_or_else(|| small(false)),
        );
        debug_assert!(decimal::signed_cmp(&lo_small, &small(true)).is_ge());
        debug_assert!(decimal::signed_cmp(&hi_small, &small(false)).is_le());
        let mut alts: Vec<String> = decimal::range(Some(&lo_small), Some(&hi_small))
            .into_iter()
            .collect();
        let frac = r"(?:\.[0-9]+)?";
        if hi.is_none() {
            alts.push(format!("{}{frac}", f.large()));
        }
        if lo.is_none() {
            alts.push(format!("-{}{frac}", f.large()));
        }
        Ok((!alts.is_empty()).then(|| bounded(format!("(?:{})", alts.join("|")))))
    }
}

/// The integer bound implied by a numeric bound: the least (for a minimum)
/// or greatest (for a maximum) integer satisfying it.
fn int_bound(x: &Number, is_min: bool, exclusive: bool) -> Option<i128> {
    let v: i128 = if let Some(i) = x.as_i64() {
        i as i128
    } else if let Some(u) = x.as_u64() {
        u as i128
    } else {
        let f = x.as_f64()?;
        if !f.is_finite() || f.abs() > 1e30 {
            return None;
        }
        if f.fract() != 0.0 {
            // Non-integral: the strict and loose bounds coincide.
            return Some(if is_min {
                f.ceil() as i128
            } else {
                f.floor() as i128
            });
        }
        f as i128
    };
    Some(match (is_min, exclusive) {
        (true, true) => v + 1,
        (false, true) => v - 1,
        _ => v,
    })
}

/// Spellings of one number value: integers with optional `.0…`; other
/// values as written, with optional trailing zeros after the fraction.
pub(super) fn number_scalar(x: &Number) -> Scalar {
    let int = x
        .as_i64()
        .map(|i| i as i128)
        .or(x.as_u64().map(|u| u as i128))
        .or_else(|| {
            // An integral float is an integer however large (past 2^53 too:
            // `9007199254740992.0` is `9007199254740992`), while i128 holds it.
            let f = x.as_f64()?;
            (f.fract() == 0.0 && f.abs() < 1.0e38).then_some(f as i128)
        });
    let (regex, key) = match int {
        Some(i) => (
            numeric::integer_range(Some(i), Some(i)).expect("i..=i is not empty"),
            i.to_string(),
        ),
        None => {
            let s = x.to_string();
            let re = if s.contains('.') && !s.contains(['e', 'E']) {
                format!("{}0*", regex_syntax::escape(&s))
            } else {
                regex_syntax::escape(&s)
            };
            (re, x.as_f64().map_or(s, |f| f.to_string()))
        }
    };
    Scalar::of(regex, Some(BTreeSet::from([key])))
}
