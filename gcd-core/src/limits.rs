//! What one grammar may cost to compile, in one value every front end
//! takes.
//!
//! Grammars and schemas come from users and, in agent systems, from other
//! programs. Each limit below bounds one way input can make compilation
//! grow (memory, time or recursion depth), so hostile input is refused
//! fast with an error naming the limit, instead of exhausting the process.
//! The defaults refuse no MaskBench schema that compiles and no grammar in
//! the test data; a server can lower them, a trusted offline build can
//! raise them.
//!
//! Not here, because they guard gcd's own algorithms rather than express
//! a policy: recursion depth in Lark text (groups nested 64 deep,
//! terminals defined through terminals 100 deep, templates 64 deep), a
//! single terminal's DFA (regex determinization stops at 4 MiB of working
//! memory, products of terminals at 20,000 states) and tokenizer files
//! (ids below 2²²).

use std::time::{Duration, Instant};

/// Limits on compiling one grammar, shared by the Lark, JSON Schema,
/// derive and `grammar!` front ends (see the [module docs](self)).
///
/// Start from `Limits::default()` and assign fields; more may join them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Terminals of the grammar (literals and regexes, keys of a schema's
    /// objects among them). The lexer's analysis keeps a set of terminals
    /// per lexer state, so its memory grows with their square: checked
    /// first, before any of that work.
    pub max_terminals: usize,
    /// States of the contextual lexer (the product of the terminals' DFAs
    /// per parser context). Binding to a vocabulary costs time and memory
    /// per state.
    pub max_lexer_states: usize,
    /// Terminal states summed over all contextual lexer states: the
    /// lexer's memory while it is built (8 bytes each). Grows with the
    /// square of a schema-ordered object's optional properties.
    pub max_lexer_members: usize,
    /// Distinct sets of terminals the parser can expect next.
    pub max_candidate_sets: usize,
    /// Parser configurations a matcher follows at once on a generalized
    /// grammar (ambiguity); a token needing more is refused.
    pub max_configurations: usize,
    /// Bytes of one terminal's regular expression once its parts are
    /// inlined.
    pub max_regex_len: usize,
    /// Symbols one rule alternative may expand to (`~` repetitions).
    pub max_rule_expansion: u64,
    /// Distinct instances of Lark templates.
    pub max_template_instances: usize,
    /// Objects and arrays nested in a JSON Schema document. Built as a
    /// `serde_json::Value`, a schema can nest far deeper than serde_json
    /// would parse (the deepest MaskBench schema has 63). Compiling
    /// recurses once per level, so a much higher value needs a larger
    /// thread stack.
    pub max_schema_depth: usize,
    /// Array positions a schema spells out (`prefixItems`, `minItems`).
    pub max_array_positions: u64,
    /// `minLength`/`maxLength` bounds of a string.
    pub max_string_length: u64,
    /// Wall time for compiling one grammar, checked between stages and
    /// inside the ones that grow with the input. `None` (the default)
    /// leaves compilation bounded by the size limits alone.
    pub max_compile_time: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_terminals: 32_768,
            max_lexer_states: 200_000,
            max_lexer_members: 32_000_000,
            max_candidate_sets: 50_000,
            max_configurations: 1_000,
            max_regex_len: 1 << 20,
            max_rule_expansion: 100_000,
            max_template_instances: 10_000,
            max_schema_depth: 256,
            max_array_positions: 1_000,
            max_string_length: 1 << 18,
            max_compile_time: None,
        }
    }
}

/// When compilation must stop ([`Limits::max_compile_time`]); checking is
/// a clock read, cheap enough for once per lexer state.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    at: Option<Instant>,
    limit: Option<Duration>,
}

impl Deadline {
    /// Starts the clock now.
    pub fn start(limits: &Limits) -> Deadline {
        Deadline {
            at: limits.max_compile_time.map(|d| Instant::now() + d),
            limit: limits.max_compile_time,
        }
    }

    /// A deadline that never passes.
    pub fn none() -> Deadline {
        Deadline {
            at: None,
            limit: None,
        }
    }

    /// `Err` with a message naming the limit and `stage` once the time is
    /// up.
    pub fn check(&self, stage: &str) -> Result<(), String> {
        match (self.at, self.limit) {
            (Some(at), Some(limit)) if Instant::now() >= at => Err(format!(
                "compiling took longer than {limit:?} (the limit `Limits::max_compile_time`); \
                 it stopped while {stage}"
            )),
            _ => Ok(()),
        }
    }
}
