//! llguidance's top-level `"x-guidance"` options in a schema.
//!
//! They change the output (whitespace, separators, how `oneOf` and unknown
//! keywords are read), so ignoring them as an unknown keyword would give
//! the schema's author another language than they asked for. Those that
//! map exactly onto gcd's whitespace policies are honoured; every other one
//! not at its default is refused by name.

use serde_json::Value;

use crate::error::SchemaError;
use crate::options::{Options, Whitespace};

const KEY: &str = "x-guidance";

/// `options` with the schema's `x-guidance` options applied (the schema's
/// word wins over the caller's whitespace policy, as in llguidance).
pub(crate) fn apply(schema: &Value, options: &Options) -> Result<Options, SchemaError> {
    let Some(x) = schema.get(KEY) else {
        return Ok(options.clone());
    };
    let ptr = format!("/{KEY}");
    let x = x
        .as_object()
        .ok_or_else(|| SchemaError::invalid(Some(KEY), "", "must be an object"))?;
    let unsupported =
        |k: &str, why: &str| SchemaError::unsupported(KEY, &format!("{ptr}/{k}"), why);
    let mut flexible = true;
    let (mut item, mut key) = (",", ":");
    for (k, v) in x {
        match (k.as_str(), v) {
            ("whitespace_flexible", Value::Bool(b)) => flexible = *b,
            ("whitespace_pattern", Value::String(p)) => match any_json_whitespace(p) {
                true => flexible = true,
                false => {
                    return Err(unsupported(
                        k,
                        "only a pattern of any JSON whitespace (`[\\x20\\x0A\\x0D\\x09]+`) maps onto gcd's policies",
                    ))
                }
            },
            ("item_separator", Value::String(s)) => item = s,
            ("key_separator", Value::String(s)) => key = s,
            ("coerce_one_of" | "lenient", Value::Bool(false)) => {}
            ("coerce_one_of", _) => {
                return Err(unsupported(k, "oneOf is kept exact: gcd does not read it as anyOf"))
            }
            ("lenient", _) => {
                return Err(unsupported(
                    k,
                    "gcd refuses what it cannot enforce instead of ignoring it",
                ))
            }
            ("json_allowed_escapes", Value::String(s)) if s == "nrbtf\\\"u" => {}
            _ => return Err(unsupported(k, "not an option gcd can honour")),
        }
    }
    let whitespace = match (flexible, item, key) {
        (true, ",", ":") => Whitespace::Json,
        (false, ",", ":") => Whitespace::Compact,
        (false, ", ", ": ") => Whitespace::SingleSpace,
        _ => {
            return Err(unsupported(
                "item_separator",
                "separators other than `,`/`:` (or `, `/`: ` without flexible whitespace) have no gcd policy",
            ))
        }
    };
    Ok(options.clone().whitespace(whitespace))
}

/// Whether `p` is a run of one or more of JSON's four whitespace bytes,
/// written as a bracket class with `+`.
fn any_json_whitespace(p: &str) -> bool {
    let Some(class) = p.strip_prefix('[').and_then(|p| p.strip_suffix("]+")) else {
        return false;
    };
    let mut seen = [false; 4];
    let mut rest = class;
    while !rest.is_empty() {
        let (c, n) = match rest.as_bytes() {
            [b'\\', b'x', ..] => (
                rest.get(2..4).and_then(|h| u8::from_str_radix(h, 16).ok()),
                4,
            ),
            [b'\\', b'n', ..] => (Some(b'\n'), 2),
            [b'\\', b'r', ..] => (Some(b'\r'), 2),
            [b'\\', b't', ..] => (Some(b'\t'), 2),
            [b' ', ..] => (Some(b' '), 1),
            _ => (None, 1),
        };
        match c.and_then(|c| [b' ', b'\n', b'\r', b'\t'].iter().position(|&w| w == c)) {
            Some(i) => seen[i] = true,
            None => return false,
        }
        rest = rest.get(n..).unwrap_or_default();
    }
    seen.iter().all(|&s| s)
}
