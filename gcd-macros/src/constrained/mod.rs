//! `#[derive(Constrained)]`: the type's JSON shape as serde_json writes it,
//! built from the shapes of its field types through the `Constrained`
//! trait. What the type knows about itself (names, tags, rules) is fixed
//! here at compile time; the composed grammar is linked at first use.

mod attrs;
mod case;
mod starts;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Type};

use attrs::{Container, Errors, Rules};

pub fn derive(input: TokenStream) -> TokenStream {
    match syn::parse2::<DeriveInput>(input).and_then(expand) {
        Ok(t) => t,
        Err(e) => e.to_compile_error(),
    }
}

fn expand(input: DeriveInput) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let c = attrs::container(&input.attrs, &mut errors);
    let (starts_with, checks) = match &input.data {
        Data::Struct(s) => (starts::struct_starts(&c, &s.fields), TokenStream::new()),
        Data::Enum(e) if input.generics.params.is_empty() => (
            starts::enum_starts(&c, e),
            starts::untagged_checks(&input.ident, &c, e),
        ),
        Data::Enum(e) => (starts::enum_starts(&c, e), TokenStream::new()),
        Data::Union(_) => (quote!(0), TokenStream::new()),
    };
    let body = match &input.data {
        Data::Struct(s) => struct_shape(&c, &s.fields, &mut errors),
        Data::Enum(e) => enum_shape(&c, e, &mut errors),
        Data::Union(u) => {
            errors.push(syn::Error::new(
                u.union_token.span,
                "`Constrained` cannot be derived for unions",
            ));
            quote!(unreachable!())
        }
    };
    if c.content.is_some() && c.tag.is_none() {
        errors.push(syn::Error::new(
            input.ident.span(),
            "`#[serde(content = ...)]` needs `tag = ...` too",
        ));
    }
    let name = &input.ident;
    let mut generics = input.generics.clone();
    for p in generics.type_params_mut() {
        p.bounds.push(syn::parse_quote!(::gcd::Constrained));
    }
    let (impl_g, ty_g, where_c) = generics.split_for_impl();
    if let Err(e) = errors.finish() {
        // The errors, plus an impl that keeps the type `Constrained`: uses
        // of it elsewhere then compile, instead of adding follow-on errors
        // (E0599, E0277) to the ones that matter.
        let errors = e.to_compile_error();
        return Ok(quote! {
            #errors
            impl #impl_g ::gcd::Constrained for #name #ty_g #where_c {
                fn shape(_: &mut ::gcd::constrained::ShapeSet) -> ::gcd::constrained::Shape {
                    ::gcd::constrained::Shape::Invalid(::std::string::String::from(
                        "#[derive(Constrained)] reported errors for this type",
                    ))
                }
            }
        });
    }
    let whitespace = c.whitespace.map(|w| {
        let w = whitespace_variant(w);
        quote!(const WHITESPACE: ::gcd::constrained::Whitespace = ::gcd::constrained::Whitespace::#w;)
    });
    Ok(quote! {
        #checks
        impl #impl_g ::gcd::Constrained for #name #ty_g #where_c {
            #whitespace
            const STARTS_WITH: u8 = #starts_with;
            const DEF: ::std::option::Option<&'static ::gcd::constrained::ShapeDef> = {
                #[allow(unused_imports)]
                use ::gcd::constrained::{FieldDef, FieldRules, ShapeDef, TypeDef};
                ::std::option::Option::Some(&#body)
            };
            fn shape(set: &mut ::gcd::constrained::ShapeSet) -> ::gcd::constrained::Shape {
                ::gcd::constrained::shape_of_def::<Self>(set)
            }
        }
    })
}

/// The shape of one field's type with its `#[constrained]` rules.
/// The `Whitespace` variant the generated impl names for `w`.
fn whitespace_variant(w: gcd_core::json::Whitespace) -> TokenStream {
    use gcd_core::json::Whitespace;
    match w {
        Whitespace::Compact => quote!(Compact),
        Whitespace::Spaced => quote!(Spaced),
        Whitespace::SingleSpace => quote!(SingleSpace),
        Whitespace::Json => quote!(Json),
        Whitespace::Capped(n) => quote!(Capped(#n)),
        Whitespace::Within => quote!(Within),
    }
}

fn field_type_shape(ty: &Type, field: &str, rules: &Rules) -> TokenStream {
    let shape = quote_spanned!(ty.span()=> <#ty as ::gcd::Constrained>::shape);
    let opt = |v: Option<usize>| {
        v.map_or(
            quote!(::std::option::Option::None),
            |v| quote!(::std::option::Option::Some(#v)),
        )
    };
    let pattern = rules.pattern.as_deref().map_or(
        quote!(::std::option::Option::None),
        |p| quote!(::std::option::Option::Some(#p)),
    );
    let range = rules.range.map_or(
        quote!(::std::option::Option::None),
        |(lo, hi)| quote!(::std::option::Option::Some((#lo, #hi))),
    );
    let (min_len, max_len) = (opt(rules.min_len), opt(rules.max_len));
    let (min_items, max_items) = (opt(rules.min_items), opt(rules.max_items));
    let prebuilt = prebuilt_dfas(rules);
    quote!(ShapeDef::Type(TypeDef {
        field: #field,
        shape: #shape,
        rules: FieldRules {
            pattern: #pattern,
            min_len: #min_len,
            max_len: #max_len,
            range: #range,
            min_items: #min_items,
            max_items: #max_items,
            prebuilt: &[#(#prebuilt),*],
        },
    }))
}

/// The DFAs of a field's own pattern or range, determinized now, as
/// (regex, table bytes) pairs that linking hands to the run-time cache, so
/// that linking the type's grammar at first use does not build them. A rule that does not compile yields
/// nothing here: `check_rules` and the first use report it.
fn prebuilt_dfas(rules: &Rules) -> Vec<TokenStream> {
    use gcd_core::json::{regexes_to_prebuild, Shape, StringRules};
    let shape = if rules.is_string() {
        Shape::String(StringRules {
            pattern: rules.pattern.clone(),
            min_len: rules.min_len,
            max_len: rules.max_len,
        })
    } else if let Some((min, max)) = rules.range {
        Shape::Integer { min, max }
    } else {
        return Vec::new();
    };
    regexes_to_prebuild(&shape)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|re| {
            let dfa = gcd_core::lexer::TerminalDfa::new(&re).ok()?;
            let bytes = proc_macro2::Literal::byte_string(&dfa.to_bytes());
            Some(quote!((#re, #bytes)))
        })
        .collect()
}

/// Rules that cannot fit a field's primitive type, caught now rather than
/// at first use.
fn check_rules(ty: &Type, rules: &Rules, attr: Option<&syn::Attribute>, errors: &mut Errors) {
    let error = |msg: String| match attr {
        Some(a) => syn::Error::new_spanned(a, msg),
        None => syn::Error::new(ty.span(), msg),
    };
    let Type::Path(p) = ty else { return };
    let Some(ident) = p.path.get_ident().map(|i| i.to_string()) else {
        return;
    };
    let bounds: Option<(i128, i128)> = match ident.as_str() {
        "u8" => Some((0, u8::MAX as i128)),
        "u16" => Some((0, u16::MAX as i128)),
        "u32" => Some((0, u32::MAX as i128)),
        "u64" | "usize" => Some((0, u64::MAX as i128)),
        "i8" => Some((i8::MIN as i128, i8::MAX as i128)),
        "i16" => Some((i16::MIN as i128, i16::MAX as i128)),
        "i32" => Some((i32::MIN as i128, i32::MAX as i128)),
        "i64" | "isize" => Some((i64::MIN as i128, i64::MAX as i128)),
        _ => None,
    };
    if let (Some((lo, hi)), Some((min, max))) = (rules.range, bounds) {
        if lo < min || hi > max {
            errors.push(error(format!(
                "range {lo}..={hi} does not fit `{ident}` ({min}..={max})"
            )));
        }
    }
    let is_string = ident == "String";
    let is_number = bounds.is_some() || matches!(ident.as_str(), "f32" | "f64" | "bool" | "char");
    if rules.range.is_some()
        && (is_string || matches!(ident.as_str(), "f32" | "f64" | "bool" | "char"))
    {
        errors.push(error(format!(
            "`range` applies to integer types, not `{ident}`"
        )));
    }
    if rules.is_string() && is_number {
        errors.push(error(format!(
            "`pattern`, `min_len` and `max_len` apply to strings, not `{ident}`"
        )));
    }
    if (rules.min_items.is_some() || rules.max_items.is_some()) && (is_string || is_number) {
        errors.push(error(format!(
            "`min_items` and `max_items` apply to sequences, not `{ident}`"
        )));
    }
}

fn rules_attr(attrs: &[syn::Attribute]) -> Option<&syn::Attribute> {
    attrs.iter().find(|a| a.path().is_ident("constrained"))
}

/// Whether serde treats a missing field of this type as `None`.
fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// `Field { .. }` expressions for named fields (skipped ones left out).
fn named_fields(
    fields: &Fields,
    case: Option<case::Case>,
    all_default: bool,
    errors: &mut Errors,
) -> Vec<TokenStream> {
    let mut out = Vec::new();
    for f in fields {
        let a = attrs::field(&f.attrs, errors);
        if a.skip {
            continue;
        }
        let ident = f.ident.as_ref().expect("named field").to_string();
        let ident = ident.strip_prefix("r#").unwrap_or(&ident).to_string();
        let aliases = &a.aliases;
        let json_name = a
            .rename
            .clone()
            .unwrap_or_else(|| case.map_or(ident.clone(), |c| c.field(&ident)));
        check_rules(&f.ty, &a.rules, rules_attr(&f.attrs), errors);
        let shape = field_type_shape(&f.ty, &ident, &a.rules);
        let required = !(a.default || all_default || is_option(&f.ty));
        out.push(
            quote!(FieldDef { name: #json_name, aliases: &[#(#aliases),*], shape: #shape, required: #required }),
        );
    }
    out
}

/// Shapes of unnamed fields (skipped ones left out).
fn unnamed_fields(fields: &Fields, errors: &mut Errors) -> Vec<TokenStream> {
    let mut out = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let a = attrs::field(&f.attrs, errors);
        if a.rename.is_some() {
            errors.push(syn::Error::new(
                f.span(),
                "`rename` has no meaning on a tuple field",
            ));
        }
        if !a.skip {
            check_rules(&f.ty, &a.rules, rules_attr(&f.attrs), errors);
            out.push(field_type_shape(&f.ty, &i.to_string(), &a.rules));
        }
    }
    out
}

fn struct_shape(c: &Container, fields: &Fields, errors: &mut Errors) -> TokenStream {
    if let Some(span) = c.enum_only {
        errors.push(syn::Error::new(
            span,
            "`tag`, `content` and `untagged` apply to enums; a struct is always an object",
        ));
    }
    match fields {
        _ if c.transparent => {
            transparent_field(fields, errors).unwrap_or_else(|| quote!(ShapeDef::Null))
        }
        Fields::Named(_) => {
            let f = named_fields(fields, c.rename_all, c.default, errors);
            quote!(ShapeDef::Object(&[#(#f),*]))
        }
        Fields::Unnamed(_) => {
            let f = unnamed_fields(fields, errors);
            if f.len() == 1 {
                // A newtype is its field, in serde_json.
                f.into_iter().next().expect("one")
            } else {
                quote!(ShapeDef::Tuple(&[#(#f),*]))
            }
        }
        Fields::Unit => quote!(ShapeDef::Null),
    }
}

/// The one field of a `transparent` struct.
fn transparent_field(fields: &Fields, errors: &mut Errors) -> Option<TokenStream> {
    let kept: Vec<_> = fields
        .iter()
        .filter(|f| !attrs::field(&f.attrs, &mut Errors::default()).skip)
        .collect();
    if kept.len() != 1 {
        errors.push(syn::Error::new(
            fields.span(),
            "`transparent` needs exactly one field that is not skipped",
        ));
        return None;
    }
    let f = kept[0];
    let a = attrs::field(&f.attrs, &mut Errors::default());
    Some(field_type_shape(
        &f.ty,
        &f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(),
        &a.rules,
    ))
}

fn enum_shape(c: &Container, e: &syn::DataEnum, errors: &mut Errors) -> TokenStream {
    if c.transparent {
        errors.push(syn::Error::new(
            e.enum_token.span,
            "`transparent` applies to structs",
        ));
    }
    let mut alts = Vec::new();
    let mut tagged = Vec::new();
    for v in &e.variants {
        let a = attrs::variant(&v.attrs, errors);
        if a.skip {
            continue;
        }
        let name = a.rename.clone().unwrap_or_else(|| {
            c.rename_all
                .map_or(v.ident.to_string(), |k| k.variant(&v.ident.to_string()))
        });
        match (&c.tag, &c.content, c.untagged) {
            (_, _, true) => alts.push(match &v.fields {
                Fields::Unit => quote!(ShapeDef::Null),
                Fields::Named(_) => {
                    let f = named_fields(&v.fields, a.rename_all, false, errors);
                    quote!(ShapeDef::Object(&[#(#f),*]))
                }
                Fields::Unnamed(_) => tuple_or_newtype(unnamed_fields(&v.fields, errors)),
            }),
            (Some(_), None, false) => {
                let fields = match &v.fields {
                    Fields::Unit => quote!(&[]),
                    Fields::Named(_) => {
                        let f = named_fields(&v.fields, a.rename_all, false, errors);
                        quote!(&[#(#f),*])
                    }
                    Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                        errors.push(syn::Error::new(
                            v.span(),
                            "internally tagged newtype variants merge the inner object's keys at run time; \
                             write the fields in the variant, or use `content = ...`",
                        ));
                        quote!(&[])
                    }
                    Fields::Unnamed(_) => {
                        errors.push(syn::Error::new(
                            v.span(),
                            "serde cannot tag tuple variants internally",
                        ));
                        quote!(&[])
                    }
                };
                tagged.push(quote!((#name, #fields)));
            }
            (Some(_), Some(content), false) => {
                let fields = match &v.fields {
                    // serde reads `{"t":"Unit"}` and `{"t":"Unit","c":null}`.
                    Fields::Unit => quote!(
                        &[FieldDef { name: #content, aliases: &[], shape: ShapeDef::Null, required: false }]
                    ),
                    _ => {
                        let inner = variant_content(&v.fields, a.rename_all, errors);
                        quote!(
                            &[FieldDef { name: #content, aliases: &[], shape: #inner, required: true }]
                        )
                    }
                };
                tagged.push(quote!((#name, #fields)));
            }
            (None, _, false) => alts.push(match &v.fields {
                Fields::Unit => quote!(ShapeDef::Literal(#name)),
                _ => {
                    let inner = variant_content(&v.fields, a.rename_all, errors);
                    quote!(ShapeDef::Object(
                        &[FieldDef { name: #name, aliases: &[], shape: #inner, required: true }]
                    ))
                }
            }),
        }
    }
    match &c.tag {
        Some(tag) if !c.untagged => {
            quote!(ShapeDef::Tagged { tag: #tag, variants: &[#(#tagged),*] })
        }
        _ if alts.len() == 1 => alts.pop().expect("one"),
        _ => quote!(ShapeDef::OneOf(&[#(#alts),*])),
    }
}

fn variant_content(fields: &Fields, case: Option<case::Case>, errors: &mut Errors) -> TokenStream {
    match fields {
        Fields::Named(_) => {
            let f = named_fields(fields, case, false, errors);
            quote!(ShapeDef::Object(&[#(#f),*]))
        }
        Fields::Unnamed(_) => tuple_or_newtype(unnamed_fields(fields, errors)),
        Fields::Unit => quote!(ShapeDef::Null),
    }
}

fn tuple_or_newtype(mut shapes: Vec<TokenStream>) -> TokenStream {
    if shapes.len() == 1 {
        shapes.pop().expect("one")
    } else {
        quote!(ShapeDef::Tuple(&[#(#shapes),*]))
    }
}
