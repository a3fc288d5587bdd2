//! `grammar!`: parse the macro input, compile the grammar with gcd-core at
//! build time, and emit an item that loads the compiled tables from a
//! snapshot, or compile errors at the culprits.

mod expand;
mod input;
mod lark_text;

use proc_macro2::TokenStream;

pub use input::GrammarInput;

/// The whole macro: input tokens to output tokens.
pub fn grammar(input: TokenStream) -> TokenStream {
    match syn::parse2::<GrammarInput>(input).and_then(expand::expand) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}
