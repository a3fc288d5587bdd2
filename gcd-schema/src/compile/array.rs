//! Array keywords → an [`ArrayShape`]: prefix items, the rest, length
//! bounds. Separate because containers only name their children by [`Id`];
//! this level interns sub-schemas and never compiles them.

use serde_json::{Map, Value};

use super::{as_count, key, ptr_join, Compiler, Step, R, V};
use crate::error::SchemaError;
use crate::node::*;

impl<'a> Compiler<'a> {
    pub(super) fn array_part(
        &mut self,
        v: &V<'a>,
        m: &Map<String, Value>,
        ptr: &str,
    ) -> R<Option<ArrayShape>> {
        if let Some(u) = m.get("uniqueItems") {
            if u != &Value::Bool(false) {
                return Err(SchemaError::unsupported("uniqueItems", ptr, ""));
            }
        }
        let min = m
            .get("minItems")
            .map(|x| as_count(x, "minItems", ptr))
            .transpose()?
            .unwrap_or(0);
        let mut max = m
            .get("maxItems")
            .map(|x| as_count(x, "maxItems", ptr))
            .transpose()?;
        let (prefix_kw, rest_kw) = match m.get("items") {
            Some(Value::Array(_)) => ("items", "additionalItems"),
            _ => ("prefixItems", "items"),
        };
        let mut prefix = Vec::new();
        if let Some(Value::Array(ps)) = m.get(prefix_kw) {
            for (i, p) in ps.iter().enumerate() {
                if p == &Value::Bool(false) {
                    max = Some(max.map_or(i as u64, |x| x.min(i as u64)));
                    break;
                }
                let sv = (v.sub(&[key(prefix_kw), Step::Index(i)]))
                    .expect("position i of the prefix array was just read");
                prefix.push(self.intern(sv, ptr_join(&ptr_join(ptr, prefix_kw), &i.to_string())));
            }
        }
        let items = match m.get(rest_kw) {
            None => Some(self.any),
            Some(Value::Bool(false)) => None,
            Some(_) => {
                let sv = v.sub(&[key(rest_kw)]).expect("matched as present");
                Some(self.intern(sv, ptr_join(ptr, rest_kw)))
            }
        };
        if items.is_none() {
            max = Some(max.map_or(prefix.len() as u64, |x| x.min(prefix.len() as u64)));
        }
        if max.is_some_and(|x| x < min) {
            return Ok(None);
        }
        let full = prefix.is_empty() && items == Some(self.any) && min == 0 && max.is_none();
        Ok(Some(ArrayShape {
            prefix,
            items,
            min,
            max,
            full,
        }))
    }
}
