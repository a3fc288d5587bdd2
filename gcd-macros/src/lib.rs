//! Procedural macros for gcd, re-exported by the `gcd` crate.
//!
//! A thin shim in the manner of serde_derive: parse the input, let gcd-core
//! do the work, emit code. `#[derive(Constrained)]` lands here too.

// Library code never unwraps or panics on what callers pass in: an
// invariant states itself with `expect`, and CI runs clippy with these.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::panic))]
// Every public item says what it is for: a user reads the docs, not the code.
#![deny(missing_docs)]

use proc_macro::TokenStream;

mod constrained;
mod grammar;

/// Defines a grammar checked and compiled at build time.
///
/// ```ignore
/// gcd::grammar! {
///     /// Sums of integers.
///     pub Arith;
///     start: expr
///     ?expr: expr "+" term -> add | term
///     ?term: NUMBER | "(" expr ")"
///     NUMBER: /"[0-9]+"/
///     %ignore " "
/// }
/// let tree = Arith::parse("1 + (2 + 3)")?;
/// ```
///
/// The language is gcd's Lark subset, written as Rust tokens: a regex is a
/// string literal between slashes (`/"[0-9]+"/`, flags inline as `(?i)`),
/// and definitions are separated by `;` or by the start of the next one.
/// The grammar may also be given as text (`pub Arith = "start: ...";`) or a
/// file relative to the crate (`pub Arith = file "grammars/arith.lark";`).
///
/// Every problem (LL(1) conflict, undefined, unreachable or unproductive
/// rule, a terminal matching the empty string, an invalid regex, a
/// duplicate definition, left recursion the transforms cannot remove) is a
/// compile error at the culprit. The item is a unit struct with `SOURCE`,
/// `SNAPSHOT`, `compiled()`, `parse()` and `bind()`.
#[proc_macro]
pub fn grammar(input: TokenStream) -> TokenStream {
    grammar::grammar(input.into()).into()
}

/// Derives `gcd::Constrained`: the JSON that serde_json writes for the type
/// (and reads back), honouring serde's attributes, plus gcd's own rules in
/// `#[constrained(pattern = "...", min_len = N, max_len = N, range = a..=b,
/// min_items = N, max_items = N)]` on fields. A field's `alias`es are
/// followed (its key may be any of its names). Attributes gcd cannot follow
/// exactly (`flatten`, `with`, `deserialize_with`, ...) are compile errors
/// that name the attribute.
#[proc_macro_derive(Constrained, attributes(constrained, serde))]
pub fn derive_constrained(input: TokenStream) -> TokenStream {
    constrained::derive(input.into()).into()
}
