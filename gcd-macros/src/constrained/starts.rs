//! What JSON kinds a derived type starts with, as a const expression over
//! its field types' `Constrained::STARTS_WITH`, and the compile-time check
//! that untagged variants do not share a first token that is the same
//! terminal whatever the type (`null`, `true`, `false`): such an enum's
//! JSON cannot be parsed with one token of lookahead, and serde would always
//! read the first of the two.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DataEnum, Fields, Type};

use super::attrs::{self, Container, Errors};

fn kind(name: &str) -> TokenStream {
    let k = syn::Ident::new(name, proc_macro2::Span::call_site());
    quote!(::gcd::constrained::starts::#k)
}

/// Field types that are not skipped.
fn kept_types(fields: &Fields) -> Vec<&Type> {
    fields
        .iter()
        .filter(|f| !attrs::field(&f.attrs, &mut Errors::default()).skip)
        .map(|f| &f.ty)
        .collect()
}

/// Kinds the JSON of a struct body or variant body starts with.
fn fields_starts(fields: &Fields) -> TokenStream {
    match fields {
        Fields::Named(_) => kind("OBJECT"),
        Fields::Unit => kind("NULL"),
        Fields::Unnamed(_) => match kept_types(fields).as_slice() {
            [t] => quote!(<#t as ::gcd::Constrained>::STARTS_WITH),
            _ => kind("ARRAY"),
        },
    }
}

pub fn struct_starts(c: &Container, fields: &Fields) -> TokenStream {
    match kept_types(fields).as_slice() {
        [t] if c.transparent => quote!(<#t as ::gcd::Constrained>::STARTS_WITH),
        _ if c.transparent => quote!(0),
        _ => fields_starts(fields),
    }
}

fn kept_variants(e: &DataEnum) -> impl Iterator<Item = &syn::Variant> {
    e.variants
        .iter()
        .filter(|v| !attrs::variant(&v.attrs, &mut Errors::default()).skip)
}

pub fn enum_starts(c: &Container, e: &DataEnum) -> TokenStream {
    if c.untagged {
        let each = kept_variants(e).map(|v| fields_starts(&v.fields));
        return quote!(0 #(| #each)*);
    }
    if c.tag.is_some() {
        return kind("OBJECT");
    }
    let unit = kept_variants(e).any(|v| matches!(v.fields, Fields::Unit));
    let other = kept_variants(e).any(|v| !matches!(v.fields, Fields::Unit));
    let string = unit.then(|| kind("STRING")).into_iter();
    let object = other.then(|| kind("OBJECT")).into_iter();
    quote!(0 #(| #string)* #(| #object)*)
}

/// Const assertions, one per pair of untagged variants, spanned at the
/// later variant. Only for enums without generic parameters: the check is
/// a free `const` item, where type parameters are not in scope (generic
/// enums are checked when their grammar is first linked).
pub fn untagged_checks(name: &syn::Ident, c: &Container, e: &DataEnum) -> TokenStream {
    if !c.untagged {
        return TokenStream::new();
    }
    let variants: Vec<_> = kept_variants(e).collect();
    let mut out = TokenStream::new();
    for (j, b) in variants.iter().enumerate() {
        for a in &variants[..j] {
            let (sa, sb) = (fields_starts(&a.fields), fields_starts(&b.fields));
            let msg = |what: &str| {
                format!(
                    "untagged enum `{name}`: variants `{}` and `{}` can both be `{what}`, so one token \
                     cannot tell them apart (and serde would always read the first); give them \
                     distinct JSON or drop `untagged`",
                    a.ident, b.ident
                )
            };
            let (null_msg, bool_msg) = (msg("null"), msg("true`/`false"));
            let (null, bool_, fixed) = (kind("NULL"), kind("BOOL"), kind("FIXED"));
            // Variants of the same type make both operands equal: that is
            // the point of the check, not a slip (clippy's `eq_op` is
            // deny-by-default in the user's crate).
            out.extend(quote_spanned! {b.span()=>
                #[allow(clippy::eq_op)]
                const _: () = {
                    let both = (#sa) & (#sb) & #fixed;
                    if both & #null != 0 {
                        panic!(#null_msg);
                    }
                    if both & #bool_ != 0 {
                        panic!(#bool_msg);
                    }
                };
            });
        }
    }
    out
}
