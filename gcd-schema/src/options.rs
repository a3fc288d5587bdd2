//! What a caller can choose when compiling a schema: whitespace, member
//! order, string spellings, the default dialect, integer spellings and a
//! size cap. Every compilation stage reads these, so they sit below them.

/// Where whitespace may appear between JSON lexemes: gcd-core's policy,
/// shared with `#[derive(Constrained)]`. [`Options::default()`] takes
/// [`DEFAULT_WHITESPACE`].
pub use gcd_core::json::Whitespace;
pub use gcd_core::Limits;

/// The default whitespace policy: JSON whitespace where pretty-printers put
/// it, at most 20 bytes in each place (an indent of 2 to depth 9, of 4 to
/// depth 4). Compact output, Python's `json.dumps` and pretty-printed JSON
/// all pass, but a model cannot spend its budget on blank lines. For
/// validating documents with any whitespace, take [`Whitespace::Json`].
pub const DEFAULT_WHITESPACE: Whitespace = Whitespace::Capped(Whitespace::DEFAULT_CAP);

/// Which spellings of a character constrained strings and object keys
/// accept (unconstrained strings always accept every spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Escapes {
    /// One spelling per character: raw, else the short escape, else
    /// `\u00XX` (what serializers write). A strict subset of what the schema
    /// allows (`"\u0061"` is refused where `"a"` is required), never more,
    /// and much smaller automata.
    #[default]
    Canonical,
    /// Every RFC 8259 spelling, including `\uXXXX` for any character.
    Any,
}

/// The JSON Schema dialect, when the schema's `$schema` does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Draft {
    /// Draft 4: as `Draft7`, and `type: integer` is only numbers written
    /// without a fraction or exponent.
    Draft4,
    /// Drafts 6 and 7: keywords beside `$ref` are ignored.
    Draft7,
    /// 2019-09 and 2020-12: keywords beside `$ref` apply too.
    #[default]
    Draft2020,
}

/// How `type: integer` values may be spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Integers {
    /// Every spelling JSON Schema counts as an integer: `1`, `1.0`, `-0`,
    /// `1e5`. For replaying documents written elsewhere (MaskBench, the
    /// JSON-Schema-Test-Suite), not for generating: a model allowed `237.0`
    /// writes it now and then, and `as_i64()` or Python's `range()` fail.
    Json,
    /// Plain digits only, as llguidance, XGrammar and outlines generate
    /// them and as serde_json reads them into a Rust integer type: a
    /// subset of what JSON Schema allows, never more. The default.
    #[default]
    Plain,
}

/// In which order an object's members may come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PropertyOrder {
    /// Declared properties in schema order, extra keys after them: the
    /// model writes fields in the order the schema author chose (a
    /// `reasoning` field before an `answer`), and unions of objects can be
    /// told apart by their first key. Documents in another order are
    /// refused although the schema allows them.
    #[default]
    Schema,
    /// Any order, each key at most once, required ones present: exactly
    /// what the schema allows. Several object shapes in one union are then
    /// refused (nothing tells them apart at the first key).
    Any,
}

impl PropertyOrder {
    /// The names `FromStr` reads and `Display` writes, in the order
    /// `gcd maskbench --properties` lists them.
    pub const NAMES: [&'static str; 2] = ["any", "schema"];
}

impl std::str::FromStr for PropertyOrder {
    type Err = gcd_core::UnknownOptionName;

    fn from_str(name: &str) -> Result<PropertyOrder, Self::Err> {
        match name {
            "schema" => Ok(PropertyOrder::Schema),
            "any" => Ok(PropertyOrder::Any),
            _ => Err(gcd_core::UnknownOptionName::new(
                "property order",
                name,
                &PropertyOrder::NAMES,
            )),
        }
    }
}

impl std::fmt::Display for PropertyOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PropertyOrder::Schema => "schema",
            PropertyOrder::Any => "any",
        })
    }
}

/// Compilation options: start from `Options::default()` and chain the
/// setters (`Options::default().properties(PropertyOrder::Any)`). Fields can
/// be read and assigned; new options will join them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// [`DEFAULT_WHITESPACE`] unless set: bounded whitespace where
    /// pretty-printers put it ([`Whitespace::Json`] takes any).
    pub whitespace: Whitespace,
    /// In which order an object's members may come; [`PropertyOrder::Schema`]
    /// unless set.
    pub properties: PropertyOrder,
    /// Which spellings constrained strings and object keys accept;
    /// [`Escapes::Canonical`] unless set.
    pub escapes: Escapes,
    /// Default dialect; a root `$schema` naming a known draft overrides it.
    pub draft: Draft,
    /// How `type: integer` values may be spelled; [`Integers::Plain`]
    /// unless set. Set [`Integers::Json`] to replay documents that write
    /// integers as `1.0` or `1e5`.
    pub integers: Integers,
    /// What compiling the schema may cost: nesting depth, string and
    /// array bounds, lexer size, time (see [`Limits`]). A schema over one
    /// is refused with an error naming the limit.
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            whitespace: DEFAULT_WHITESPACE,
            properties: PropertyOrder::default(),
            escapes: Escapes::default(),
            draft: Draft::default(),
            integers: Integers::default(),
            limits: Limits::default(),
        }
    }
}

impl Options {
    /// Where whitespace may appear.
    pub fn whitespace(mut self, whitespace: Whitespace) -> Options {
        self.whitespace = whitespace;
        self
    }

    /// In which order object members may come.
    pub fn properties(mut self, properties: PropertyOrder) -> Options {
        self.properties = properties;
        self
    }

    /// Which spellings constrained strings accept.
    pub fn escapes(mut self, escapes: Escapes) -> Options {
        self.escapes = escapes;
        self
    }

    /// The dialect when the schema's `$schema` does not say.
    pub fn draft(mut self, draft: Draft) -> Options {
        self.draft = draft;
        self
    }

    /// How `type: integer` values may be spelled.
    pub fn integers(mut self, integers: Integers) -> Options {
        self.integers = integers;
        self
    }

    /// The limits on compiling (see [`Limits`]).
    pub fn limits(mut self, limits: Limits) -> Options {
        self.limits = limits;
        self
    }

    /// Sets [`Limits::max_lexer_states`]: binding to a vocabulary costs
    /// time and memory per lexer state, so servers may want a lower cap.
    pub fn max_lexer_states(mut self, max: usize) -> Options {
        self.limits.max_lexer_states = max;
        self
    }

    /// Sets [`Limits::max_schema_depth`]: past it a schema is refused
    /// before compiling, whose time grows with the depth.
    pub fn max_depth(mut self, max: usize) -> Options {
        self.limits.max_schema_depth = max;
        self
    }
}
