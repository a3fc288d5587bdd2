//! `number`/`integer` keywords (bounds, `multipleOf`) → the regex of the
//! allowed numbers. Separate because bounds are spelled through
//! `numeric` (integers) and `decimal` (fractions), each with its own limits.

use std::collections::BTreeSet;

use serde_json::{Map, Number, Value};

use super::{Compiler, R};
use crate::error::SchemaError;
use crate::node::*;
use crate::{decimal, numeric, Integers};

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
        if bounds.is_empty() {
            return Ok(Some(if int_only && plain {
                Scalar::some(numeric::PLAIN_INTEGER.to_string())
            } else if int_only {
                let digits = numeric::integer_range(None, None).unwrap();
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
            let spelled = if plain {
                numeric::plain_integer_range(lo, hi)
            } else {
                numeric::integer_range(lo, hi)
            };
            return Ok(spelled.map(Scalar::some));
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
        match decimal::range(lo.as_ref(), hi.as_ref()) {
            Ok(r) => Ok(r.map(Scalar::some)),
            Err(decimal::Unbuildable) => Err(SchemaError::unsupported(
                bounds[0].0,
                ptr,
                "both bounds fractional within one integer interval",
            )),
        }
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
            let f = x.as_f64()?;
            (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i128)
        });
    let (regex, key) = match int {
        Some(i) => (
            numeric::integer_range(Some(i), Some(i)).unwrap(),
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
    Scalar {
        regex,
        values: Some(BTreeSet::from([key])),
        full: false,
    }
}
