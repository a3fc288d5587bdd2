//! `const`/`enum` → nodes of finite value sets, and checking those values
//! against the keywords beside them. Separate because values become exact
//! spellings (and constant children), not constraints.

use std::collections::BTreeSet;

use serde_json::Value;

use super::number::number_scalar;
use super::{ptr_join, Compiler, Src, R};
use crate::error::SchemaError;
use crate::node::*;
use crate::spell::quoted;

impl Compiler<'_> {
    /// The node of a finite set of values (`enum`, `const`).
    pub(super) fn const_node(&mut self, values: &[Value], ptr: &str, kw: &str) -> R<Node> {
        let mut n = Node::default();
        let (mut numbers, mut strings) = (Vec::new(), Vec::new());
        for (i, v) in values.iter().enumerate() {
            let p = ptr_join(ptr, &i.to_string());
            match v {
                Value::Null => n.null = true,
                Value::Bool(true) => n.t = true,
                Value::Bool(false) => n.f = true,
                Value::Number(x) => numbers.push(number_scalar(x)),
                Value::String(x) => strings.push(Scalar::of(
                    quoted(x, self.esc),
                    Some(BTreeSet::from([v.to_string()])),
                )),
                Value::Array(xs) => {
                    if n.array.is_some() {
                        return Err(SchemaError::unsupported(
                            kw,
                            ptr,
                            "more than one array value",
                        ));
                    }
                    let prefix = xs
                        .iter()
                        .enumerate()
                        .map(|(j, x)| {
                            self.push(Src::Const(x.clone(), ptr_join(&p, &j.to_string())))
                        })
                        .collect();
                    let len = xs.len() as u64;
                    n.array = Some(ArrayShape {
                        prefix,
                        items: None,
                        min: len,
                        max: Some(len),
                        full: false,
                    });
                }
                Value::Object(o) => {
                    if n.object.is_some() {
                        return Err(SchemaError::unsupported(
                            kw,
                            ptr,
                            "more than one object value",
                        ));
                    }
                    let props = o
                        .iter()
                        .map(|(k, x)| Property {
                            name: k.clone(),
                            schema: self.push(Src::Const(x.clone(), ptr_join(&p, k))),
                            required: true,
                        })
                        .collect();
                    n.object = Some(ObjectShape {
                        props,
                        reserved: o.keys().cloned().collect(),
                        patterns: vec![],
                        additional: None,
                        nonempty: false,
                        full: false,
                    });
                }
            }
        }
        n.number = Scalar::union_all(numbers);
        n.string = Scalar::union_all(strings);
        Ok(n)
    }
}

/// Whether the value `x` (of an `enum`/`const`) is in the language of
/// `n`, the node of the keywords beside it. Scalars are checked on their
/// serde_json spelling: where `n` is a documented subset that refuses that
/// spelling, the value is dropped, which only refuses more.
pub(super) fn value_in(x: &Value, n: &Node, ptr: &str, kw: &str) -> R<bool> {
    let spelled = |s: &Scalar, text: String| -> R<bool> {
        if s.full {
            return Ok(true);
        }
        for a in &s.alts {
            // Counted, not determinized (see `long_string`).
            if let [re] = &a[..] {
                if let Some((lo, hi)) = long_string(re) {
                    let len =
                        serde_json::from_str::<String>(&text).map(|t| t.chars().count() as u64);
                    if len.is_ok_and(|n| n >= lo && hi.is_none_or(|h| n <= h)) {
                        return Ok(true);
                    }
                    continue;
                }
            }
            let dfa = match &a[..] {
                [re] => gcd_core::lexer::TerminalDfa::new(re),
                _ => gcd_core::lexer::TerminalDfa::intersection(a),
            };
            match dfa {
                Ok(dfa) if dfa.matches(text.as_bytes()) => return Ok(true),
                Ok(_) | Err(gcd_core::lexer::DfaError::NeverMatches) => {}
                Err(e) => return Err(SchemaError::unsupported(kw, ptr, format!("{e:?}"))),
            }
        }
        Ok(false)
    };
    let nested = || {
        SchemaError::unsupported(
            kw,
            ptr,
            "an object or array value beside keywords that constrain it",
        )
    };
    match x {
        Value::Null => Ok(n.null),
        Value::Bool(b) => Ok(if *b { n.t } else { n.f }),
        Value::Number(_) => n
            .number
            .as_ref()
            .map_or(Ok(false), |s| spelled(s, x.to_string())),
        Value::String(_) => n
            .string
            .as_ref()
            .map_or(Ok(false), |s| spelled(s, x.to_string())),
        Value::Array(_) => match &n.array {
            None => Ok(false),
            Some(a) if a.full => Ok(true),
            Some(_) => Err(nested()),
        },
        Value::Object(_) => match (&n.object, n.more_objects.is_empty()) {
            (None, true) => Ok(false),
            (Some(o), true) if o.full => Ok(true),
            _ => Err(nested()),
        },
    }
}
