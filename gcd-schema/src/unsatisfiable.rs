//! Which keywords make a schema allow nothing.
//!
//! The compiler finds that no value is left at some pointer, but not
//! which keywords took the last ones away: types, bounds and required
//! members are each dropped where they are compiled. So on that error
//! only, each keyword at the pointer is left out in turn, and the ones
//! whose absence lets a value through are named (and within `allOf`,
//! `anyOf`-free parts the same way, one level down). Bounded by a probe
//! count and a time budget, since each probe compiles the document again.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::{SchemaError, SchemaErrorKind};

/// Most schemas compiled again to explain one error.
const MAX_PROBES: usize = 32;
/// Most time spent explaining one error.
const MAX_TIME: Duration = Duration::from_millis(500);

/// `e` with the keywords that clash at its pointer named, when `e` says
/// the schema allows no value and leaving out keywords shows which
/// (`allows_a_value` compiles a changed document).
pub(crate) fn explain(
    schema: &Value,
    allows_a_value: &dyn Fn(&Value) -> bool,
    e: SchemaError,
) -> SchemaError {
    if e.kind() != SchemaErrorKind::Unsatisfiable {
        return e;
    }
    let mut probe = Probe {
        schema,
        allows_a_value,
        left: MAX_PROBES,
        until: Instant::now() + MAX_TIME,
    };
    let clash = probe.needed(e.pointer());
    let clash = probe.refine(clash, 4);
    if clash.is_empty() {
        return e;
    }
    let at = if e.pointer().is_empty() {
        "/"
    } else {
        e.pointer()
    };
    let named: Vec<String> = clash.iter().map(|p| format!("`{p}`")).collect();
    SchemaError::unsatisfiable(
        at,
        format!(
            "no JSON value meets these together: {} (leaving out any one of them lets a value through)",
            named.join(", ")
        ),
    )
}

struct Probe<'a> {
    schema: &'a Value,
    allows_a_value: &'a dyn Fn(&Value) -> bool,
    left: usize,
    until: Instant,
}

impl Probe<'_> {
    /// `clash` with each container among it (`properties`, `allOf`, a
    /// property's or a part's schema) replaced by what is needed inside it,
    /// down to `depth` levels: `/properties/a/type` rather than
    /// `/properties`.
    fn refine(&mut self, clash: Vec<String>, depth: usize) -> Vec<String> {
        let mut out = Vec::new();
        for p in clash {
            let parent = p.rsplit_once('/').map_or("", |(a, _)| a);
            let container = p.ends_with("/properties")
                || p.ends_with("/allOf")
                || parent.ends_with("/properties")
                || parent.ends_with("/allOf");
            let inner = match container && depth > 0 {
                true => self.needed(&p),
                false => Vec::new(),
            };
            match inner.is_empty() {
                true => out.push(p),
                false => out.extend(self.refine(inner, depth - 1)),
            }
        }
        out
    }

    /// The members of the object or array at `ptr` without which the
    /// document allows a value (pointers to them).
    fn needed(&mut self, ptr: &str) -> Vec<String> {
        let Some(here) = self.schema.pointer(ptr) else {
            return Vec::new();
        };
        let keys: Vec<String> = match here {
            Value::Object(m) => m.keys().cloned().collect(),
            Value::Array(a) => (0..a.len()).map(|i| i.to_string()).collect(),
            _ => return Vec::new(),
        };
        let mut out = Vec::new();
        for k in keys {
            if self.left == 0 || Instant::now() > self.until {
                break;
            }
            self.left -= 1;
            let mut doc = self.schema.clone();
            match doc.pointer_mut(ptr) {
                Some(Value::Object(m)) => {
                    m.shift_remove(&k);
                }
                // An allOf part left out is `true` (the array keeps its shape).
                Some(Value::Array(a)) => {
                    a[k.parse::<usize>().expect("an index")] = Value::Bool(true)
                }
                _ => continue,
            }
            if (self.allows_a_value)(&doc) {
                out.push(format!("{ptr}/{}", k.replace('~', "~0").replace('/', "~1")));
            }
        }
        out
    }
}
