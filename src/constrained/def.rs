//! A derived type's own shape as static data.
//!
//! `#[derive(Constrained)]` emits a [`ShapeDef`] as the associated const
//! [`Constrained::DEF`](super::Constrained::DEF): the keys, tags, literals,
//! field rules and the DFAs of the type's own patterns and ranges, all
//! computed when the crate builds. Field types are reached through their
//! `shape` functions (plain `fn` pointers), which keeps the data `const`
//! for generic and recursive types; [`shape_of_def`] turns it into a
//! [`Shape`] when the grammar is linked, once per process.

use super::{field_rules, Constrained, Field, Shape, ShapeSet};

#[derive(Debug)]
pub enum ShapeDef {
    Null,
    /// A value of a field's type, under the field's rules.
    Type(TypeDef),
    /// Exactly this string (a unit variant's name), quoted when linked.
    Literal(&'static str),
    Object(&'static [FieldDef]),
    Tuple(&'static [ShapeDef]),
    OneOf(&'static [ShapeDef]),
    /// serde's internally and adjacently tagged enums: the tag key, and per
    /// variant its tag value and the fields after the tag.
    Tagged {
        tag: &'static str,
        variants: &'static [(&'static str, &'static [FieldDef])],
    },
}

#[derive(Debug)]
pub struct FieldDef {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub shape: ShapeDef,
    pub required: bool,
}

#[derive(Debug)]
pub struct TypeDef {
    /// The Rust field (name or position), for error messages.
    pub field: &'static str,
    pub shape: fn(&mut ShapeSet) -> Shape,
    pub rules: FieldRules,
}

/// `#[constrained(...)]` on a field, with the DFAs its pattern or range
/// needs as (regex, table bytes) pairs built at compile time.
#[derive(Debug, Default)]
pub struct FieldRules {
    pub pattern: Option<&'static str>,
    pub min_len: Option<usize>,
    pub max_len: Option<usize>,
    pub range: Option<(i128, i128)>,
    pub min_items: Option<usize>,
    pub max_items: Option<usize>,
    pub prebuilt: &'static [(&'static str, &'static [u8])],
}

impl FieldRules {
    /// No rules: the field's type as it is.
    pub const NONE: FieldRules = FieldRules {
        pattern: None,
        min_len: None,
        max_len: None,
        range: None,
        min_items: None,
        max_items: None,
        prebuilt: &[],
    };
}

impl ShapeDef {
    pub fn to_shape(&self, set: &mut ShapeSet) -> Shape {
        match self {
            ShapeDef::Null => Shape::Null,
            ShapeDef::Type(t) => t.to_shape(set),
            ShapeDef::Literal(s) => Shape::Literal(gcd_core::json::json_quote(s)),
            ShapeDef::Object(fields) => Shape::Object(fields_of(fields, set)),
            ShapeDef::Tuple(items) => Shape::Tuple(items.iter().map(|s| s.to_shape(set)).collect()),
            ShapeDef::OneOf(alts) => Shape::OneOf(alts.iter().map(|s| s.to_shape(set)).collect()),
            ShapeDef::Tagged { tag, variants } => Shape::Tagged {
                tag: tag.to_string(),
                variants: variants
                    .iter()
                    .map(|(name, fields)| (name.to_string(), fields_of(fields, set)))
                    .collect(),
            },
        }
    }
}

fn fields_of(fields: &[FieldDef], set: &mut ShapeSet) -> Vec<Field> {
    fields
        .iter()
        .map(|f| Field {
            name: f.name.to_string(),
            aliases: f.aliases.iter().map(|a| a.to_string()).collect(),
            shape: f.shape.to_shape(set),
            required: f.required,
        })
        .collect()
}

impl TypeDef {
    fn to_shape(&self, set: &mut ShapeSet) -> Shape {
        let r = &self.rules;
        for (regex, bytes) in r.prebuilt {
            gcd_core::lexer::TerminalDfa::preload(regex, bytes);
        }
        let mut s = (self.shape)(set);
        if r.pattern.is_some() || r.min_len.is_some() || r.max_len.is_some() {
            s = field_rules::string(self.field, s, r.pattern, r.min_len, r.max_len);
        }
        if let Some((lo, hi)) = r.range {
            s = field_rules::range(self.field, s, lo, hi);
        }
        if r.min_items.is_some() || r.max_items.is_some() {
            s = field_rules::items(self.field, s, r.min_items, r.max_items);
        }
        s
    }
}

/// `T`'s shape from [`Constrained::DEF`], defined in `set` under `T`'s
/// type name so that recursive types refer to themselves.
pub fn shape_of_def<T: Constrained + ?Sized>(set: &mut ShapeSet) -> Shape {
    let name = std::any::type_name::<T>();
    if set.contains(name) {
        return Shape::Named(name.into());
    }
    let Some(def) = T::DEF else {
        return Shape::Invalid(format!("`{name}` has no shape definition"));
    };
    set.reserve(name);
    let shape = def.to_shape(set);
    set.define(name, shape);
    Shape::Named(name.into())
}
