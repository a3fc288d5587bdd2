//! serde's and gcd's attributes, read into plain values. Attributes that
//! change the JSON in ways gcd cannot follow are errors, never ignored.

use gcd_core::json::Whitespace;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, ExprRange, Lit, LitStr, RangeLimits};

use super::case::Case;

/// Collects every error instead of stopping at the first.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    pub fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

#[derive(Default)]
pub struct Container {
    pub rename_all: Option<Case>,
    pub tag: Option<String>,
    pub content: Option<String>,
    pub untagged: bool,
    pub transparent: bool,
    /// `#[serde(default)]` on the container: every field may be left out.
    pub default: bool,
    /// `#[constrained(whitespace = "...")]`.
    pub whitespace: Option<Whitespace>,
    /// Where an enum-only attribute (`tag`, `content`, `untagged`) was written.
    pub enum_only: Option<proc_macro2::Span>,
}

#[derive(Default)]
pub struct FieldAttrs {
    pub rename: Option<String>,
    pub aliases: Vec<String>,
    pub skip: bool,
    pub default: bool,
    pub rules: Rules,
}

#[derive(Default)]
pub struct VariantAttrs {
    pub rename: Option<String>,
    pub rename_all: Option<Case>,
    pub skip: bool,
}

/// `#[constrained(...)]` on a field.
#[derive(Default)]
pub struct Rules {
    pub pattern: Option<String>,
    pub min_len: Option<usize>,
    pub max_len: Option<usize>,
    pub range: Option<(i128, i128)>,
    pub min_items: Option<usize>,
    pub max_items: Option<usize>,
}

impl Rules {
    pub fn is_string(&self) -> bool {
        self.pattern.is_some() || self.min_len.is_some() || self.max_len.is_some()
    }
}

fn is_serde(a: &Attribute) -> bool {
    a.path().is_ident("serde")
}

/// What a reader made of one `#[serde(...)]` item.
enum Item {
    Read,
    /// Known to serde, but gcd cannot follow it exactly: why.
    Unsupported(&'static str),
    Unknown,
}

/// Runs `read` on every item of the `#[serde(...)]` attributes. Items it
/// cannot use are errors naming them; their values are skipped.
fn read_serde(
    attrs: &[Attribute],
    errors: &mut Errors,
    mut read: impl FnMut(&syn::meta::ParseNestedMeta) -> syn::Result<Item>,
) {
    let mut refused = Vec::new();
    for a in attrs.iter().filter(|a| is_serde(a)) {
        let r = a.parse_nested_meta(|meta| {
            let why = match read(&meta)? {
                Item::Read => return Ok(()),
                Item::Unsupported(why) => why,
                Item::Unknown => "it changes the JSON in a way gcd cannot follow",
            };
            refused.push(unsupported(&meta.path, why));
            skip_value(&meta)
        });
        if let Err(e) = r {
            errors.push(e);
        }
    }
    refused.into_iter().for_each(|e| errors.push(e));
}

fn unsupported(path: &syn::Path, what: &str) -> syn::Error {
    let name = path.get_ident().map(|i| i.to_string()).unwrap_or_default();
    syn::Error::new(
        path.span(),
        format!("`#[serde({name})]` is not supported by `Constrained`: {what}"),
    )
}

/// Skips the value of an attribute we read but do not need.
fn skip_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|m| skip_value(&m))?;
    }
    Ok(())
}

fn case(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Case> {
    if !meta.input.peek(syn::Token![=]) {
        return Err(meta.error("`rename_all(...)` with separate serialize/deserialize styles is not supported; write `rename_all = \"...\"`"));
    }
    let s: LitStr = meta.value()?.parse()?;
    Case::parse(&s.value()).ok_or_else(|| {
        syn::Error::new(
            s.span(),
            format!(
                "unknown case style `{}`; serde knows lowercase, UPPERCASE, PascalCase, camelCase, snake_case, \
                 SCREAMING_SNAKE_CASE, kebab-case and SCREAMING-KEBAB-CASE",
                s.value()
            ),
        )
    })
}

fn string(meta: &syn::meta::ParseNestedMeta) -> syn::Result<String> {
    if !meta.input.peek(syn::Token![=]) {
        return Err(meta.error(
            "separate serialize/deserialize names are not supported; write `rename = \"...\"`",
        ));
    }
    Ok(meta.value()?.parse::<LitStr>()?.value())
}

pub fn container(attrs: &[Attribute], errors: &mut Errors) -> Container {
    let mut c = Container::default();
    for a in attrs.iter().filter(|a| a.path().is_ident("constrained")) {
        let r = a.parse_nested_meta(|meta| {
            if !meta.path.is_ident("whitespace") {
                return Err(meta.error("on a type, `#[constrained(...)]` takes `whitespace = \"compact\" | \"spaced\" | \"single_space\" | \"capped\" | \"json\"`"));
            }
            let s: LitStr = meta.value()?.parse()?;
            let policy = Whitespace::from_name(&s.value())
                .map_err(|e| syn::Error::new(s.span(), e))?;
            c.whitespace = Some(policy);
            Ok(())
        });
        if let Err(e) = r {
            errors.push(e);
        }
    }
    read_serde(attrs, errors, |meta| {
        let p = &meta.path;
        if ["tag", "content", "untagged"].iter().any(|n| p.is_ident(n)) {
            c.enum_only.get_or_insert(p.span());
        }
        if p.is_ident("rename_all") {
            c.rename_all = Some(case(meta)?);
        } else if p.is_ident("tag") {
            c.tag = Some(string(meta)?);
        } else if p.is_ident("content") {
            c.content = Some(string(meta)?);
        } else if p.is_ident("untagged") {
            c.untagged = true;
        } else if p.is_ident("transparent") {
            c.transparent = true;
        } else if p.is_ident("default") {
            c.default = true;
            skip_value(meta)?;
        } else if [
            "deny_unknown_fields",
            "rename",
            "bound",
            "crate",
            "expecting",
        ]
        .iter()
        .any(|n| p.is_ident(n))
        {
            // Unknown fields are never generated anyway; the others do not change the JSON.
            skip_value(meta)?;
        } else {
            return Ok(Item::Unknown);
        }
        Ok(Item::Read)
    });
    c
}

pub fn field(attrs: &[Attribute], errors: &mut Errors) -> FieldAttrs {
    let mut f = FieldAttrs::default();
    read_serde(attrs, errors, |meta| {
        let p = &meta.path;
        if p.is_ident("rename") {
            f.rename = Some(string(meta)?);
        } else if p.is_ident("skip") || p.is_ident("skip_deserializing") {
            f.skip = true;
        } else if p.is_ident("default") {
            f.default = true;
            skip_value(meta)?;
        } else if p.is_ident("alias") {
            f.aliases.push(meta.value()?.parse::<LitStr>()?.value());
        } else if [
            "skip_serializing",
            "skip_serializing_if",
            "serialize_with",
            "borrow",
            "bound",
            "getter",
        ]
        .iter()
        .any(|n| p.is_ident(n))
        {
            // Serialization-only, or no effect on the JSON read.
            skip_value(meta)?;
        } else if p.is_ident("flatten") {
            return Ok(Item::Unsupported(
                "a flattened field's keys are only known at run time; nest the struct instead",
            ));
        } else {
            return Ok(Item::Unknown);
        }
        Ok(Item::Read)
    });
    for a in attrs.iter().filter(|a| a.path().is_ident("constrained")) {
        if let Err(e) = a.parse_nested_meta(|meta| rule(&mut f.rules, meta)) {
            errors.push(e);
        }
    }
    if let (Some(lo), Some(hi)) = (f.rules.min_len, f.rules.max_len) {
        if lo > hi {
            errors.push(error_at(
                attrs,
                "constrained",
                format!("min_len {lo} is greater than max_len {hi}"),
            ));
        }
    }
    if let (Some(lo), Some(hi)) = (f.rules.min_items, f.rules.max_items) {
        if lo > hi {
            errors.push(error_at(
                attrs,
                "constrained",
                format!("min_items {lo} is greater than max_items {hi}"),
            ));
        }
    }
    f
}

fn error_at(attrs: &[Attribute], name: &str, msg: String) -> syn::Error {
    match attrs.iter().find(|a| a.path().is_ident(name)) {
        Some(a) => syn::Error::new_spanned(a, msg),
        None => syn::Error::new(proc_macro2::Span::call_site(), msg),
    }
}

fn usize_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<usize> {
    let lit: syn::LitInt = meta.value()?.parse()?;
    lit.base10_parse()
}

fn int_bound(e: &Expr) -> syn::Result<i128> {
    match e {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse(),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => Ok(-int_bound(&u.expr)?),
        Expr::Group(g) => int_bound(&g.expr),
        other => Err(syn::Error::new(other.span(), "expected an integer literal")),
    }
}

fn rule(r: &mut Rules, meta: syn::meta::ParseNestedMeta) -> syn::Result<()> {
    let p = meta.path.clone();
    if p.is_ident("pattern") {
        let s: LitStr = meta.value()?.parse()?;
        if let Err(e) = regex_syntax::ParserBuilder::new().build().parse(&s.value()) {
            return Err(syn::Error::new(
                s.span(),
                format!("`pattern` is not a valid regex: {e}"),
            ));
        }
        r.pattern = Some(s.value());
    } else if p.is_ident("min_len") {
        r.min_len = Some(usize_value(&meta)?);
    } else if p.is_ident("max_len") {
        r.max_len = Some(usize_value(&meta)?);
    } else if p.is_ident("min_items") {
        r.min_items = Some(usize_value(&meta)?);
    } else if p.is_ident("max_items") {
        r.max_items = Some(usize_value(&meta)?);
    } else if p.is_ident("range") {
        let e: Expr = meta.value()?.parse()?;
        let Expr::Range(ExprRange {
            start: Some(lo),
            end: Some(hi),
            limits,
            ..
        }) = &e
        else {
            return Err(syn::Error::new(
                e.span(),
                "expected an inclusive range of integers, as `range = 1..=10`",
            ));
        };
        let (lo, mut hi) = (int_bound(lo)?, int_bound(hi)?);
        if matches!(limits, RangeLimits::HalfOpen(_)) {
            hi -= 1;
        }
        if lo > hi {
            return Err(syn::Error::new(
                e.span(),
                format!("the range {lo}..={hi} is empty"),
            ));
        }
        r.range = Some((lo, hi));
    } else {
        return Err(meta.error(
            "unknown rule; `#[constrained(...)]` takes pattern, min_len, max_len, range, min_items and max_items",
        ));
    }
    Ok(())
}

pub fn variant(attrs: &[Attribute], errors: &mut Errors) -> VariantAttrs {
    let mut v = VariantAttrs::default();
    for a in attrs.iter().filter(|a| a.path().is_ident("constrained")) {
        errors.push(syn::Error::new_spanned(
            a,
            "`#[constrained(...)]` goes on fields or on the type, not on variants",
        ));
    }
    read_serde(attrs, errors, |meta| {
        let p = &meta.path;
        if p.is_ident("rename") {
            v.rename = Some(string(meta)?);
        } else if p.is_ident("rename_all") {
            v.rename_all = Some(case(meta)?);
        } else if p.is_ident("skip") || p.is_ident("skip_deserializing") {
            v.skip = true;
        } else if ["skip_serializing", "serialize_with", "bound"]
            .iter()
            .any(|n| p.is_ident(n))
        {
            skip_value(meta)?;
        } else {
            return Ok(Item::Unknown);
        }
        Ok(Item::Read)
    });
    v
}
