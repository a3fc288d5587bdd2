//! Rust types as constraints: a type that implements [`Constrained`]
//! describes the JSON that serde_json writes for it (and reads back), and a
//! [`Decoder`] masks a model's tokens so that only such JSON comes out.
//!
//! `#[derive(Constrained)]` implements the trait for structs and enums,
//! honouring serde's attributes; this module implements it for the standard
//! types. What a derived type knows about itself is computed when its crate
//! builds: its shape as const data ([`ShapeDef`], with the DFAs of its own
//! patterns and ranges), and compile-time checks over its field types'
//! [`STARTS_WITH`](Constrained::STARTS_WITH). The grammar composed from
//! the field types is linked once per process, at first use, and cached.
//!
//! Unknown fields are never generated, with or without
//! `deny_unknown_fields`: the grammar only has the declared keys.

use std::any::TypeId;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::{Arc, Mutex, OnceLock};

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
pub use gcd_core::json::{Field, Shape, ShapeSet, StringRules, Whitespace};
use gcd_core::runtime::decode::LogitsSource;
use gcd_core::runtime::matcher::{MatchError, Matcher};
use gcd_core::vocab::Vocabulary;

/// A type whose JSON form gcd can enforce.
pub trait Constrained {
    /// Where whitespace may go when this is the type decoded (set with
    /// `#[constrained(whitespace = "compact" | "spaced" | "single_space" |
    /// "capped" | "json")]`, where `capped` is JSON whitespace where
    /// pretty-printers put it, at most 20 bytes in each place);
    /// [`Whitespace::Compact`] unless set, as `serde_json::to_string` writes.
    const WHITESPACE: Whitespace = Whitespace::Compact;

    /// JSON kinds ([`starts`] bits) that a value of `Self` certainly can
    /// start with: a subset, `0` when unknown. `#[derive(Constrained)]`
    /// uses it to reject, at compile time, untagged enums whose variants
    /// JSON cannot tell apart.
    const STARTS_WITH: u8 = 0;

    /// The type's own shape as static data, which `#[derive(Constrained)]`
    /// emits (`None` for types that build their shape in code).
    const DEF: Option<&'static ShapeDef> = None;

    /// The JSON shape of `Self`. Named types define themselves in `set`
    /// (and refer to themselves by name), so recursive types terminate.
    fn shape(set: &mut ShapeSet) -> Shape;
}

mod def;
pub use def::{shape_of_def, FieldDef, FieldRules, ShapeDef, TypeDef};

/// Bits of [`Constrained::STARTS_WITH`]: the first token of a JSON value.
pub mod starts {
    /// The value `null`.
    pub const NULL: u8 = 1;
    /// `true` or `false`.
    pub const BOOL: u8 = 2;
    /// A number, whose first byte is `-` or a digit.
    pub const NUMBER: u8 = 4;
    /// A string, opened by `"`.
    pub const STRING: u8 = 8;
    /// An array, opened by `[`.
    pub const ARRAY: u8 = 16;
    /// An object, opened by `{`.
    pub const OBJECT: u8 = 32;
    /// Kinds that are one fixed token whatever the type: two untagged
    /// variants that can both start with one of these are ambiguous.
    pub const FIXED: u8 = NULL | BOOL;
}

/// Why a type's constraint or its output could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConstraintError {
    /// `T`'s shape cannot be made into an exact grammar, found when the
    /// grammar is built at first use: a `#[constrained(...)]` rule that
    /// does not fit its field's type, a `pattern` together with
    /// `min_len`/`max_len`, two keys or tags spelled alike, variants JSON
    /// cannot tell apart.
    #[error("type `{ty}` cannot be enforced exactly: {message}")]
    Unsupported {
        /// The type being decoded, as [`std::any::type_name`] spells it:
        /// the root type, not necessarily the one at fault.
        ty: &'static str,
        /// Why, naming the field when a field's rule is at fault; when
        /// gcd-core refused the composed grammar (an LL(1) conflict, as
        /// between untagged variants that one token cannot tell apart), its
        /// diagnostic followed by the grammar text.
        message: String,
    },
    /// The matcher refused: a token the grammar does not allow next, an id
    /// outside the vocabulary, a token after EOS, or a budget smaller than
    /// what the output still needs ([`MatchError::kind`] says which).
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The vocabulary lacks a special token the grammar names (a chat
    /// format's end-of-turn token, see [`crate::chat`]).
    #[error(transparent)]
    Vocab(#[from] gcd_core::vocab::VocabError),
    /// [`Decoder::from_schema`] could not compile the schema: the error
    /// says why and at which JSON pointer.
    #[error(transparent)]
    Schema(#[from] gcd_schema::SchemaError),
    /// [`Decoder::finish`] was called before the output was a complete
    /// value; holds the output's length so far, in bytes. Advance further,
    /// or decode under a budget: its output is complete when it runs out.
    #[error("the output is not complete yet ({0} bytes so far)")]
    Incomplete(usize),
    /// For a derived type, a gcd bug; for a schema, `T` does not match
    /// the schema.
    #[error("the output does not deserialize: {0}")]
    Deserialize(serde_json::Error),
}

/// The grammar text for `T` (gcd's Lark subset), for reading: the grammar
/// [`json_grammar`] builds, printed ([`gcd_core::grammar::Printer`]); it
/// reads back through the Lark front end as the same grammar.
pub fn grammar_text<T: Constrained + ?Sized>(ws: Whitespace) -> Result<String, ConstraintError> {
    json_grammar::<T>(ws).map(|g| g.to_string())
}

fn unsupported<T: ?Sized>(message: String) -> ConstraintError {
    ConstraintError::Unsupported {
        ty: std::any::type_name::<T>(),
        message,
    }
}

/// The value under `key` in a process-wide cache, built by `build` the first
/// time. Building runs outside the lock; a rare race builds twice.
pub(crate) fn cached<K: std::hash::Hash + Eq, V: Clone>(
    cache: &OnceLock<Mutex<HashMap<K, V>>>,
    key: K,
    build: impl FnOnce() -> Result<V, ConstraintError>,
) -> Result<V, ConstraintError> {
    let map = cache.get_or_init(Default::default);
    if let Some(v) = map.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(v.clone());
    }
    let v = build()?;
    map.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, v.clone());
    Ok(v)
}

/// The grammar IR of `T`'s JSON (before compilation): what
/// [`Chat`](crate::Chat) and `grammar!`'s `@Type` rules embed.
pub fn json_grammar<T: Constrained + ?Sized>(
    ws: Whitespace,
) -> Result<gcd_core::grammar::Grammar, ConstraintError> {
    let mut set = ShapeSet::new();
    let root = T::shape(&mut set);
    gcd_core::json::to_grammar(&root, &set, ws).map_err(|e| unsupported::<T>(e.0))
}

/// The compiled grammar for `T`, built at first use and cached.
pub fn compiled<T: Constrained + 'static>(
    ws: Whitespace,
) -> Result<Arc<CompiledGrammar>, ConstraintError> {
    static CACHE: OnceLock<Mutex<HashMap<(TypeId, Whitespace), Arc<CompiledGrammar>>>> =
        OnceLock::new();
    cached(&CACHE, (TypeId::of::<T>(), ws), || {
        let g = json_grammar::<T>(ws)?;
        // The derive's shapes are LL(1) by construction: a conflict is a bug to report.
        let strict = gcd_core::compiled::Config::default().ll1_only(true);
        let g = CompiledGrammar::with_config(&g, &strict)
            .map_err(|e| unsupported::<T>(format!("{e}\ngrammar:\n{g}")))?;
        Ok(Arc::new(g))
    })
}

/// `T`'s grammar bound to `vocab`, built once per process (per type,
/// whitespace policy and vocabulary) and shared by every decoder after.
/// Binding starts a worker thread that builds all of its token and budget
/// tables ([`BoundGrammar::build_all_on_worker`]); masks before it is done
/// build what they need themselves.
pub fn bound<T: Constrained + 'static>(
    ws: Whitespace,
    vocab: Arc<Vocabulary>,
) -> Result<Arc<BoundGrammar>, ConstraintError> {
    type Key = (TypeId, Whitespace, u64);
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<BoundGrammar>>>> = OnceLock::new();
    let key = (TypeId::of::<T>(), ws, vocab.fingerprint());
    cached(&CACHE, key, || {
        let bound = Arc::new(BoundGrammar::new(compiled::<T>(ws)?, vocab));
        // A type's grammar is known before its first request: its tables
        // are built beside the caller, ready when the prompt has been read.
        drop(bound.build_all_on_worker());
        Ok(bound)
    })
}

/// Decodes one value of `T`: mask the logits, advance by the chosen token,
/// and [`finish`](Decoder::finish) with the value.
///
/// `T` either derives [`Constrained`] ([`Decoder::new`]: the grammar comes
/// from the type) or is any `DeserializeOwned` type read from output that a
/// JSON Schema constrains ([`Decoder::from_schema`], `T =
/// serde_json::Value` for untyped use). In the second case the schema is
/// the contract: a `T` that does not match it makes [`finish`](Decoder::finish)
/// fail with [`ConstraintError::Deserialize`].
pub struct Decoder<T> {
    matcher: Matcher,
    _type: PhantomData<fn() -> T>,
}

impl<T: Constrained + serde::de::DeserializeOwned + 'static> Decoder<T> {
    /// JSON with the type's whitespace policy ([`Constrained::WHITESPACE`]).
    pub fn new(vocab: Arc<Vocabulary>) -> Result<Decoder<T>, ConstraintError> {
        Self::with_whitespace(vocab, T::WHITESPACE)
    }

    /// JSON with the whitespace policy `ws` in place of the type's own.
    pub fn with_whitespace(
        vocab: Arc<Vocabulary>,
        ws: Whitespace,
    ) -> Result<Decoder<T>, ConstraintError> {
        Ok(Self::from_bound(bound::<T>(ws, vocab)?))
    }
}

impl<T: serde::de::DeserializeOwned> Decoder<T> {
    /// Output constrained by a JSON Schema, compiled with `options` and
    /// bound to `vocab`. Compiling and binding cost milliseconds: to decode
    /// many outputs of one schema, bind once and use
    /// [`from_bound`](Decoder::from_bound) with the shared
    /// [`BoundGrammar`]. Integers come as plain digits, which a `T` with
    /// Rust integer fields reads ([`Integers::Plain`](gcd_schema::Integers::Plain),
    /// the default; JSON Schema also counts `7.0` as an integer, serde's
    /// `u8` does not).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// let vocab = Arc::new(gcd::Vocabulary::o200k_base()?);
    /// let schema = serde_json::json!({
    ///     "type": "object",
    ///     "properties": {"city": {"type": "string"}},
    ///     "required": ["city"],
    /// });
    /// let options = gcd::schema::Options::default();
    /// let mut decoder = gcd::Decoder::<serde_json::Value>::from_schema(&schema, &options, vocab.clone())?;
    /// for token in vocab.encode(r#"{"city":"Oslo"}"#)? {
    ///     decoder.advance(token)?;
    /// }
    /// assert_eq!(decoder.finish()?["city"], "Oslo");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_schema(
        schema: &serde_json::Value,
        options: &gcd_schema::Options,
        vocab: Arc<Vocabulary>,
    ) -> Result<Decoder<T>, ConstraintError> {
        let compiled = gcd_schema::compile(schema, options)?;
        Ok(Self::from_bound(Arc::new(BoundGrammar::new(
            Arc::new(compiled),
            vocab,
        ))))
    }

    /// A decoder over a grammar already bound, whose output must
    /// deserialize into `T` (a JSON grammar: a schema's, or a Lark grammar
    /// of JSON).
    pub fn from_bound(bound: Arc<BoundGrammar>) -> Decoder<T> {
        Decoder {
            matcher: Matcher::new(bound),
            _type: PhantomData,
        }
    }

    /// The decoder of the output `matcher` constrains (a chat turn's,
    /// with its reasoning cap set).
    pub(crate) fn from_matcher(matcher: Matcher) -> Decoder<T> {
        Decoder {
            matcher,
            _type: PhantomData,
        }
    }

    /// At most `n` tokens, and the value is complete when they run out.
    pub fn with_budget(mut self, n: usize) -> Result<Decoder<T>, ConstraintError> {
        self.matcher = self.matcher.with_budget(n)?;
        Ok(self)
    }

    /// Sets the logits of the tokens not allowed next to negative infinity
    /// and leaves the others as they are. `logits` is indexed by token id;
    /// ids past the vocabulary are masked too, and so is everything once
    /// EOS was taken.
    pub fn mask_logits(&self, logits: &mut [f32]) {
        self.matcher.mask_logits(logits)
    }

    /// Appends `token` to the output; an EOS token ends it, and is accepted
    /// only once the output is complete. A token the mask forbids is a
    /// [`ConstraintError::Match`], and leaves the decoder unchanged.
    pub fn advance(&mut self, token: u32) -> Result<(), ConstraintError> {
        Ok(self.matcher.advance(token)?)
    }

    /// Whether EOS was accepted: the output has ended.
    pub fn is_finished(&self) -> bool {
        self.matcher.is_finished()
    }

    /// The matcher underneath, for what the decoder does not wrap: the
    /// tokens and bytes so far, [`Matcher::accepts_bytes`], bitmasks.
    pub fn matcher(&self) -> &Matcher {
        &self.matcher
    }

    /// The matcher underneath, to roll back or change the budget:
    /// [`finish`](Decoder::finish) reads the output it is left with.
    pub fn matcher_mut(&mut self) -> &mut Matcher {
        &mut self.matcher
    }

    /// Runs `model` to the end of the output with [`greedy`] decoding and
    /// returns the value. With a budget the output always completes;
    /// without one, `max_steps` bounds the tokens.
    ///
    /// [`greedy`]: gcd_core::runtime::decode::greedy
    pub fn greedy(
        &mut self,
        model: &mut dyn LogitsSource,
        max_steps: usize,
    ) -> Result<T, ConstraintError> {
        gcd_core::runtime::decode::greedy(&mut self.matcher, model, max_steps)?;
        self.finish()
    }

    /// The value, once the output is complete.
    pub fn finish(&self) -> Result<T, ConstraintError> {
        serde_json::from_slice(self.complete_output()?).map_err(ConstraintError::Deserialize)
    }

    /// The output, once it is complete (else [`ConstraintError::Incomplete`]).
    pub(crate) fn complete_output(&self) -> Result<&[u8], ConstraintError> {
        if !self.matcher.is_finished() && !self.matcher.is_complete() {
            return Err(ConstraintError::Incomplete(self.matcher.output().len()));
        }
        Ok(self.matcher.output())
    }
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl Constrained for $t {
            const STARTS_WITH: u8 = starts::NUMBER;
            fn shape(_: &mut ShapeSet) -> Shape {
                Shape::Integer { min: <$t>::MIN as i128, max: <$t>::MAX as i128 }
            }
        }
    )*};
}
integers!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl Constrained for bool {
    const STARTS_WITH: u8 = starts::BOOL;
    fn shape(_: &mut ShapeSet) -> Shape {
        Shape::Bool
    }
}

impl Constrained for f64 {
    const STARTS_WITH: u8 = starts::NUMBER;
    fn shape(_: &mut ShapeSet) -> Shape {
        Shape::Number
    }
}

impl Constrained for f32 {
    const STARTS_WITH: u8 = starts::NUMBER;
    fn shape(_: &mut ShapeSet) -> Shape {
        Shape::Number32
    }
}

impl Constrained for char {
    const STARTS_WITH: u8 = starts::STRING;
    fn shape(_: &mut ShapeSet) -> Shape {
        Shape::Char
    }
}

impl Constrained for String {
    const STARTS_WITH: u8 = starts::STRING;
    fn shape(_: &mut ShapeSet) -> Shape {
        Shape::String(StringRules::default())
    }
}

impl Constrained for () {
    const STARTS_WITH: u8 = starts::NULL;
    fn shape(_: &mut ShapeSet) -> Shape {
        Shape::Null
    }
}

impl<T: Constrained> Constrained for Option<T> {
    const STARTS_WITH: u8 = T::STARTS_WITH | starts::NULL;
    fn shape(set: &mut ShapeSet) -> Shape {
        // `Option<Option<T>>` and `Option<()>` read `null` as the outer `None`.
        match T::shape(set) {
            Shape::Null => Shape::Null,
            Shape::OneOf(alts) if alts.contains(&Shape::Null) => Shape::OneOf(alts),
            s => Shape::OneOf(vec![s, Shape::Null]),
        }
    }
}

/// Helpers for code that `#[derive(Constrained)]` emits: a field's
/// `#[constrained(...)]` rules applied to its type's shape. A rule that does
/// not fit the type becomes an error at first use, naming the field.
#[doc(hidden)]
pub mod field_rules {
    use super::{Shape, StringRules};

    pub fn string(
        field: &str,
        shape: Shape,
        pattern: Option<&str>,
        min_len: Option<usize>,
        max_len: Option<usize>,
    ) -> Shape {
        match shape {
            Shape::String(_) => Shape::String(StringRules {
                pattern: pattern.map(str::to_string),
                min_len,
                max_len,
            }),
            other => Shape::Invalid(format!(
                "field `{field}`: pattern/min_len/max_len apply to strings, not to {other:?}"
            )),
        }
    }

    pub fn range(field: &str, shape: Shape, lo: i128, hi: i128) -> Shape {
        match shape {
            Shape::Integer { min, max } if min <= lo && hi <= max && lo <= hi => {
                Shape::Integer { min: lo, max: hi }
            }
            Shape::Integer { min, max } => Shape::Invalid(format!(
                "field `{field}`: range {lo}..={hi} is empty or outside the type's {min}..={max}"
            )),
            other => Shape::Invalid(format!(
                "field `{field}`: range applies to integers, not to {other:?}"
            )),
        }
    }

    pub fn items(field: &str, shape: Shape, lo: Option<usize>, hi: Option<usize>) -> Shape {
        match shape {
            Shape::Array {
                items,
                min_items,
                max_items,
            } => Shape::Array {
                items,
                min_items: lo.unwrap_or(min_items).max(min_items),
                max_items: match (hi, max_items) {
                    (Some(h), Some(m)) => Some(h.min(m)),
                    (h, m) => h.or(m),
                },
            },
            other => Shape::Invalid(format!(
                "field `{field}`: min_items/max_items apply to sequences, not to {other:?}"
            )),
        }
    }
}

macro_rules! sequences {
    ($($t:ident),*) => {$(
        impl<T: Constrained> Constrained for $t<T> {
            const STARTS_WITH: u8 = starts::ARRAY;
            fn shape(set: &mut ShapeSet) -> Shape {
                Shape::Array { items: Box::new(T::shape(set)), min_items: 0, max_items: None }
            }
        }
    )*};
}
sequences!(Vec, VecDeque);

impl<T: Constrained, const N: usize> Constrained for [T; N] {
    const STARTS_WITH: u8 = starts::ARRAY;
    fn shape(set: &mut ShapeSet) -> Shape {
        Shape::Array {
            items: Box::new(T::shape(set)),
            min_items: N,
            max_items: Some(N),
        }
    }
}

macro_rules! pointers {
    ($($t:ident),*) => {$(
        impl<T: Constrained + ?Sized> Constrained for $t<T> {
            const STARTS_WITH: u8 = T::STARTS_WITH;
            fn shape(set: &mut ShapeSet) -> Shape {
                T::shape(set)
            }
        }
    )*};
}
pointers!(Box, Rc, Arc);

impl<V: Constrained, S> Constrained for HashMap<String, V, S> {
    const STARTS_WITH: u8 = starts::OBJECT;
    fn shape(set: &mut ShapeSet) -> Shape {
        Shape::Map {
            values: Box::new(V::shape(set)),
        }
    }
}

impl<V: Constrained> Constrained for BTreeMap<String, V> {
    const STARTS_WITH: u8 = starts::OBJECT;
    fn shape(set: &mut ShapeSet) -> Shape {
        Shape::Map {
            values: Box::new(V::shape(set)),
        }
    }
}

macro_rules! tuples {
    ($(($($t:ident),+)),*) => {$(
        impl<$($t: Constrained),+> Constrained for ($($t,)+) {
            const STARTS_WITH: u8 = starts::ARRAY;
            fn shape(set: &mut ShapeSet) -> Shape {
                Shape::Tuple(vec![$($t::shape(set)),+])
            }
        }
    )*};
}
tuples!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F)
);
