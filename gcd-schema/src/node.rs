//! The JSON shape of one schema: the values it allows, split by JSON type.
//!
//! Splitting by type is what makes unions LL(1): every JSON value's first
//! byte says its type, so `anyOf`/`oneOf` branches merge per type (scalars
//! by regex union, containers only when one branch has them).

use crate::spell::JSON_CHAR;
use std::collections::BTreeSet;

/// Index of a schema location (or constant) in the compiler's arena.
pub type Id = usize;

/// Regex for every JSON number.
pub const ANY_NUMBER: &str = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?";

/// Length bounds above this are not unrolled into one terminal's DFA
/// anywhere: such a string is emitted as a chain of fixed-size chunks (see
/// [`long_string`]), and uses that need its DFA (a pattern beside it,
/// values checked against it) refuse it. A string value is chunked from a
/// lower bound on (the emitter's `CHUNKED_ABOVE`).
pub const LONG_STRING_ABOVE: u64 = 1000;

/// The regex of JSON strings of `lo..=hi` characters (no upper bound for
/// `None`).
pub fn string_of_length(lo: u64, hi: Option<u64>) -> String {
    match hi {
        Some(h) => format!("\"{JSON_CHAR}{{{lo},{h}}}\""),
        None => format!("\"{JSON_CHAR}{{{lo},}}\""),
    }
}

/// The length bounds of a [`string_of_length`] regex with a bound above
/// [`LONG_STRING_ABOVE`]: too long to determinize, so the emitter spells
/// it as a rule, and every other use refuses it rather than build its DFA.
pub fn long_string(regex: &str) -> Option<(u64, Option<u64>)> {
    string_bounds(regex)
        .filter(|&(lo, hi)| lo > LONG_STRING_ABOVE || hi.is_some_and(|h| h > LONG_STRING_ABOVE))
}

/// The length bounds of any [`string_of_length`] regex.
pub fn string_bounds(regex: &str) -> Option<(u64, Option<u64>)> {
    let counts = regex
        .strip_prefix('"')?
        .strip_prefix(JSON_CHAR)?
        .strip_prefix('{')?
        .strip_suffix("}\"")?;
    let (lo, hi) = counts.split_once(',')?;
    let lo: u64 = lo.parse().ok()?;
    let hi: Option<u64> = if hi.is_empty() {
        None
    } else {
        Some(hi.parse().ok()?)
    };
    Some((lo, hi))
}

/// A scalar type's allowed spellings, remembering when it is a finite set
/// of values (from `enum`/`const`), or the whole type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scalar {
    /// A union of alternatives, each the spellings that all of its regexes
    /// match: one regex, or several where regex text cannot spell their
    /// intersection (a `pattern` within length bounds). Never empty.
    pub alts: Vec<Vec<String>>,
    /// `Some` when the part is exactly these values (canonical JSON text).
    pub values: Option<BTreeSet<String>>,
    /// The part is the whole JSON type.
    pub full: bool,
}

impl Scalar {
    pub fn full(regex: &str) -> Scalar {
        Scalar {
            alts: vec![vec![regex.to_string()]],
            values: None,
            full: true,
        }
    }
    pub fn some(regex: String) -> Scalar {
        Scalar::of(regex, None)
    }
    pub fn of(regex: String, values: Option<BTreeSet<String>>) -> Scalar {
        Scalar {
            alts: vec![vec![regex]],
            values,
            full: false,
        }
    }
    /// The spellings that every one of `regexes` matches.
    pub fn meet(regexes: Vec<String>) -> Scalar {
        Scalar {
            alts: vec![regexes],
            values: None,
            full: false,
        }
    }
    /// Union of two parts.
    pub fn union(&self, o: &Scalar) -> Scalar {
        Scalar::union_all([self.clone(), o.clone()]).expect("two parts")
    }

    /// The union of all `parts` at once (`None` for no parts): an enum of
    /// many values folded pairwise would copy the growing union per value.
    pub fn union_all(parts: impl IntoIterator<Item = Scalar>) -> Option<Scalar> {
        let mut parts = parts.into_iter().peekable();
        parts.peek()?;
        let mut values = Some(BTreeSet::new());
        // Kept apart: the emitter joins the single regexes into one
        // terminal, flat (joining here would nest one group per value).
        let mut alts: Vec<Vec<String>> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for part in parts {
            if part.full {
                return Some(part);
            }
            match (&mut values, part.values) {
                (Some(all), Some(v)) => all.extend(v),
                _ => values = None,
            }
            for a in part.alts {
                if seen.insert(a.clone()) {
                    alts.push(a);
                }
            }
        }
        Some(Scalar {
            alts,
            values,
            full: false,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayShape {
    pub prefix: Vec<Id>,
    /// Schema of items after the prefix; `None`: no more items.
    pub items: Option<Id>,
    pub min: u64,
    pub max: Option<u64>,
    pub full: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Property {
    pub name: String,
    pub schema: Id,
    pub required: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ObjectShape {
    /// Declared properties, in schema order.
    pub props: Vec<Property>,
    /// Names that may never appear as extra keys (every declared name,
    /// including those whose schema is `false`).
    pub reserved: Vec<String>,
    /// Extra keys matching a `patternProperties` pattern, tried before
    /// `additional`: none of them matches a reserved name.
    pub patterns: Vec<PatternKeys>,
    /// Schema of any other key's value; `None`: no other keys.
    pub additional: Option<Id>,
    /// At least one member (`minProperties: 1` with nothing required).
    pub nonempty: bool,
    pub full: bool,
}

/// The extra keys of one `patternProperties` entry. Keys matching several
/// entries' languages (or one and `additional`'s) go to the highest
/// priority; the compiler only lets that happen when it is exact (the
/// losing schemas then allow every value).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PatternKeys {
    /// Regex over the key's content spellings (without quotes).
    pub keys: String,
    pub schema: Id,
    /// Lexer priority of the key terminal (above 0, `additional`'s).
    pub priority: i32,
}

/// The values one schema allows, by JSON type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Node {
    pub null: bool,
    pub t: bool,
    pub f: bool,
    pub number: Option<Scalar>,
    pub string: Option<Scalar>,
    pub array: Option<ArrayShape>,
    pub object: Option<ObjectShape>,
    /// Further object alternatives (from `anyOf`/`oneOf` branches): the
    /// object part is the union of `object` and these. gcd-core's left
    /// factoring must make their union LL(1), else compiling fails.
    pub more_objects: Vec<ObjectShape>,
}

impl Node {
    pub fn is_empty(&self) -> bool {
        !self.null
            && !self.t
            && !self.f
            && self.number.is_none()
            && self.string.is_none()
            && self.array.is_none()
            && self.object.is_none()
    }
}
