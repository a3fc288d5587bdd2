//! String keywords (`minLength`/`maxLength`, `pattern`, `format`) → the
//! regex of the allowed strings. Separate because each is a regex of its
//! own and only one of them may constrain a string (their intersection is
//! not spelled).

use serde_json::{Map, Value};

use super::{as_count, Compiler, R};

/// gcd's keyword for "a string, but none of these": what `not: {enum:
/// [strings]}` leaves of the strings (see [`Compiler::negate`]). Spelled
/// as a lookahead over the whole lexeme, which gcd-core compiles into the
/// terminal's automaton: a JSON string lexeme ends at its closing quote,
/// so it starts with a value's spelling only when it is that spelling.
pub(crate) const NOT_STRINGS: &str = "x-gcd-not-strings";
use crate::error::SchemaError;
use crate::node::*;
use crate::spell::JSON_CHAR;
use crate::{format, pattern};

impl Compiler<'_> {
    pub(super) fn string_part(&self, m: &Map<String, Value>, ptr: &str) -> R<Scalar> {
        // Each constraint is a regex of the string's content; several meet
        // as an intersection of automata, which regex text cannot spell.
        let mut bodies: Vec<String> = Vec::new();
        let (mut lo, mut hi) = (0u64, None);
        // Bounds too long to unroll: spelled as a rule of chunks by the
        // emitter, which meets no other string keyword.
        let mut long = None;
        for k in ["minLength", "maxLength"] {
            if let Some(x) = m.get(k) {
                let x = as_count(x, k, ptr)?;
                if k == "minLength" {
                    lo = x
                } else {
                    hi = Some(x)
                }
            }
        }
        if lo > 0 || hi.is_some() {
            if hi.is_some_and(|h| h < lo) {
                return Ok(Scalar::some("[^\\x00-\\x{10FFFF}]".into()));
            }
            // A long string's rules grow with its bound.
            let max = self.limits.max_string_length;
            if lo > max || hi.is_some_and(|h| h > max) {
                return Err(SchemaError::unsupported(
                    if lo > max { "minLength" } else { "maxLength" },
                    ptr,
                    format!("length bounds above {max} (the limit `Limits::max_string_length`)"),
                ));
            }
            if lo > LONG_STRING_ABOVE || hi.is_some_and(|h| h > LONG_STRING_ABOVE) {
                long = Some((lo, hi));
            } else {
                bodies.push(match hi {
                    Some(h) => format!("{JSON_CHAR}{{{lo},{h}}}"),
                    None => format!("{JSON_CHAR}{{{lo},}}"),
                });
            }
        }
        if let Some(p) = m.get("pattern") {
            let p = p
                .as_str()
                .ok_or_else(|| SchemaError::invalid(Some("pattern"), ptr, "must be a string"))?;
            // `None`: every string matches, no constraint at all.
            let body = pattern::constraint(p, self.esc)
                .map_err(|e| SchemaError::unsupported("pattern", ptr, e.0))?;
            bodies.extend(body);
        }
        if let Some(f) = m.get("format") {
            let f = f
                .as_str()
                .ok_or_else(|| SchemaError::invalid(Some("format"), ptr, "must be a string"))?;
            if !format::is_standard(f) {
                // Formats no draft defines only annotate (the validator
                // cannot know them either): recorded, not enforced.
                self.ignored_formats
                    .borrow_mut()
                    .insert((ptr.to_string(), f.to_string()));
            } else {
                let Some(p) = format::pattern(f, self.legacy_formats) else {
                    return Err(SchemaError::unsupported(
                        "format",
                        ptr,
                        format!("format {f:?}"),
                    ));
                };
                bodies.push(
                    pattern::translate(&p, self.esc)
                        .map_err(|e| SchemaError::unsupported("format", ptr, e.0))?,
                );
            }
        }
        if let Some((lo, hi)) = long {
            if !bodies.is_empty() {
                return Err(SchemaError::unsupported(
                    if lo > LONG_STRING_ABOVE {
                        "minLength"
                    } else {
                        "maxLength"
                    },
                    ptr,
                    format!(
                        "length bounds above {LONG_STRING_ABOVE} together with a pattern or format"
                    ),
                ));
            }
            return Ok(Scalar::some(string_of_length(lo, hi)));
        }
        let mut quoted: Vec<String> = bodies.iter().map(|b| format!("\"{b}\"")).collect();
        if let Some(x) = m.get(NOT_STRINGS) {
            let values = x.as_array().into_iter().flatten().filter_map(Value::as_str);
            let spelled: Vec<String> = values.map(|v| crate::spell::quoted(v, self.esc)).collect();
            if !spelled.is_empty() {
                quoted.push(format!("(?!(?:{}))\"{JSON_CHAR}*\"", spelled.join("|")));
            }
        }
        Ok(match quoted.len() {
            0 => Scalar::full(&format!("\"{JSON_CHAR}*\"")),
            1 => Scalar::some(quoted.remove(0)),
            _ => Scalar::meet(quoted),
        })
    }
}
