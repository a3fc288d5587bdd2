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

/// The JSON of a derived type, or of one part of it, as serde_json writes
/// it: what [`Constrained::DEF`] holds.
#[derive(Debug)]
pub enum ShapeDef {
    /// `null`: a unit struct, a unit variant of an untagged enum, or the
    /// content of an adjacently tagged one.
    Null,
    /// A value of a field's type, under the field's rules.
    Type(TypeDef),
    /// Exactly this string (a unit variant's name), quoted when linked.
    Literal(&'static str),
    /// An object with these members in declaration order: a struct with
    /// named fields, a struct variant's content, or an externally tagged
    /// variant's `{"Name": content}`.
    Object(&'static [FieldDef]),
    /// An array of these shapes in order: a tuple struct or tuple variant,
    /// except a newtype, which is written as its one field.
    Tuple(&'static [ShapeDef]),
    /// Any one of these shapes, told apart by the JSON itself: the variants
    /// of an untagged or externally tagged enum.
    OneOf(&'static [ShapeDef]),
    /// serde's internally and adjacently tagged enums: the tag key, and per
    /// variant its tag value and the fields after the tag.
    Tagged {
        /// The key of the tag (`#[serde(tag = "...")]`), the object's first
        /// member.
        tag: &'static str,
        /// Per variant, its tag value (its name after `rename` and
        /// `rename_all`) and the members after the tag: the variant's fields
        /// when internally tagged, the one `content` member when adjacently
        /// tagged.
        variants: &'static [(&'static str, &'static [FieldDef])],
    },
}

/// One member of an object: a named field, an adjacently tagged variant's
/// content, or an externally tagged variant's one key.
#[derive(Debug)]
pub struct FieldDef {
    /// The key serde_json writes, after `rename` and `rename_all`.
    pub name: &'static str,
    /// Other keys serde reads for the member (its `alias`es), any of which
    /// may be written in place of `name`.
    pub aliases: &'static [&'static str],
    /// The member's value.
    pub shape: ShapeDef,
    /// Whether the key must be present: `false` for an `Option` field, a
    /// field with `#[serde(default)]` (on it or on the container), and the
    /// content of an adjacently tagged unit variant.
    pub required: bool,
}

/// A value of a field's type, narrowed by the field's `#[constrained(...)]`
/// rules.
#[derive(Debug)]
pub struct TypeDef {
    /// The Rust field (name or position), for error messages.
    pub field: &'static str,
    /// The field type's [`Constrained::shape`], a `fn` pointer so that the
    /// data stays `const` for generic and recursive types.
    pub shape: fn(&mut ShapeSet) -> Shape,
    /// The rules applied to that shape when linked; one that does not fit
    /// the type makes it [`Shape::Invalid`], naming the field.
    pub rules: FieldRules,
}

/// `#[constrained(...)]` on a field, with the DFAs its pattern or range
/// needs as (regex, table bytes) pairs built at compile time.
#[derive(Debug, Default)]
pub struct FieldRules {
    /// `pattern = "..."`: a regex that the string's JSON text between the
    /// quotes must match in full. Together with `min_len` or `max_len` it
    /// is refused at first use.
    pub pattern: Option<&'static str>,
    /// `min_len = N`: the fewest characters in the string.
    pub min_len: Option<usize>,
    /// `max_len = N`: the most characters in the string.
    pub max_len: Option<usize>,
    /// `range = a..=b`: the integer's inclusive bounds `(a, b)`; `a..b` is
    /// stored as `(a, b - 1)`. Must lie within the type's own range.
    pub range: Option<(i128, i128)>,
    /// `min_items = N`: the fewest items in the sequence; the type's own
    /// bound (an array's length) wins if higher.
    pub min_items: Option<usize>,
    /// `max_items = N`: the most items in the sequence; the type's own
    /// bound wins if lower.
    pub max_items: Option<usize>,
    /// The DFAs of `pattern`, `min_len`/`max_len` or `range` as (regex,
    /// table bytes) pairs, determinized by the derive and preloaded into
    /// the lexer's cache when linked, so that first use does not build
    /// them; empty when there are no such rules or they did not compile.
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
    /// This definition as a [`Shape`], with field rules applied; named
    /// field types define themselves in `set`. Unlike [`shape_of_def`], it
    /// does not define the result itself in `set`.
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
