//! Formats → gcd-core's IR, one builder expression per format.
//!
//! XGrammar's structural tags are grammars over characters (its Earley
//! parser has no lexer), so each format becomes the expression whose
//! strings are the format's, and the grammar is compiled with dynamic
//! lexing (see the module above), under which a lexeme may end wherever
//! the derivation cuts it.
//!
//! One rule is XGrammar's and not visible in the formats: a tag's end
//! strings are excluded from the free text in its content. An `any_text`,
//! `triggered_tags` or `dispatch` that is the content of a tag, or an
//! element of a sequence there (any element, not only the last: XGrammar
//! refuses `<a>x</a>yEND</a>` for `tag("<a>", sequence[any_text, "END"],
//! "</a>")`), or a branch of an `or`, or the content of a repetition, may
//! not contain the tag's ends (`tag_excludes` carries them down, and a tag
//! inside starts again with its own). Outside tags free text may contain
//! anything not excluded: `sequence[any_text, "END"]` accepts `ENDxEND`.

use gcd_core::grammar::{Expr, GrammarBuilder};
use regex_syntax::hir::Hir;

use super::format::{invalid, unsupported, Format, Style, Tag, Triggered};
use super::json::within_schema;
use super::text::literal;
use super::{json, text, xml};
use crate::{Options, SchemaError};

/// Lowers formats into one builder.
pub(crate) struct Lowerer<'o> {
    pub builder: GrammarBuilder,
    options: &'o Options,
    /// Embedded grammars so far, for fresh prefixes.
    embedded: usize,
    /// The terminals of tags whose text and end are one lexeme (see
    /// [`text::text_then_end`]): each tag's begin and the terminal's name,
    /// in lowering order, so that a caller can cap a region's tokens
    /// (a chat family's reasoning).
    pub tag_texts: Vec<(String, String)>,
    /// Grammars that stand for `json_schema` formats in the `json` style
    /// whose schema the caller knows (a typed tool's arguments), by schema.
    pub arguments: Option<super::GivenArguments<'o>>,
}

impl<'o> Lowerer<'o> {
    pub(crate) fn new(options: &'o Options) -> Lowerer<'o> {
        Lowerer {
            builder: GrammarBuilder::new(),
            options,
            embedded: 0,
            tag_texts: Vec::new(),
            arguments: None,
        }
    }

    fn prefix(&mut self, what: &str) -> String {
        self.embedded += 1;
        format!("st{}_{what}", self.embedded)
    }

    /// The expression of `f` at `at` (a JSON pointer, for errors), whose
    /// trailing free text may not contain `tag_excludes`.
    pub(crate) fn lower(
        &mut self,
        f: &Format,
        at: &str,
        tag_excludes: &[String],
    ) -> Result<Expr, SchemaError> {
        Ok(match f {
            Format::Const(s) => literal(s),
            Format::Json(j) => match j.style {
                Style::Json => {
                    let given = self.arguments.and_then(|f| f(&j.schema));
                    let g = match given {
                        Some(g) => g,
                        None => json::value_grammar(&j.schema, self.options)
                            .map_err(|e| within_schema(&format!("{at}/json_schema"), e))?,
                    };
                    let prefix = self.prefix("json");
                    json::embed(&mut self.builder, &prefix, &g)
                }
                Style::Xml(style) => {
                    let prefix = self.prefix("xml");
                    xml::lower(
                        &mut json::Embedding {
                            builder: &mut self.builder,
                            options: self.options,
                        },
                        style,
                        &prefix,
                        &j.schema,
                        at,
                    )?
                }
            },
            Format::Regex(p) => regex(p, at)?,
            Format::Grammar(src) => {
                let g = gcd_core::gbnf::parse_with(src, &self.options.limits)
                    .and_then(|b| b.build())
                    .map_err(|e| {
                        let first = e.to_string();
                        let first = first.lines().next().unwrap_or("").to_string();
                        invalid(at, format!("its EBNF grammar is refused: {first}"))
                    })?;
                let prefix = self.prefix("ebnf");
                json::embed(&mut self.builder, &prefix, &g)
            }
            Format::AnyText {
                excludes,
                max_chars,
            } => {
                let excluded = union(excludes, tag_excludes);
                optional_text(text::free_text(&excluded, *max_chars), *max_chars)
            }
            Format::Sequence(elements) => {
                let mut items = Vec::new();
                for (i, e) in elements.iter().enumerate() {
                    items.push(self.lower(e, &format!("{at}/elements/{i}"), tag_excludes)?);
                }
                Expr::seq(items)
            }
            Format::Or(elements) => {
                let mut items = Vec::new();
                for (i, e) in elements.iter().enumerate() {
                    items.push(self.lower(e, &format!("{at}/elements/{i}"), tag_excludes)?);
                }
                Expr::alt(items)
            }
            Format::Tag(t) => self.tag(t, at, "")?,
            Format::Triggered(t) => self.triggered(t, at, tag_excludes)?,
            Format::Separated {
                tags,
                separator,
                at_least_one,
                stop_after_first,
            } => {
                let mut alts = Vec::new();
                for (i, t) in tags.iter().enumerate() {
                    alts.push(self.tag(t, &format!("{at}/tags/{i}"), "")?);
                }
                let one = Expr::alt(alts);
                let some = if *stop_after_first {
                    one
                } else {
                    Expr::seq(vec![
                        one.clone(),
                        Expr::star(Expr::seq(vec![literal(separator), one])),
                    ])
                };
                if *at_least_one {
                    some
                } else {
                    Expr::opt(some)
                }
            }
            Format::Dispatch {
                rules,
                repeat,
                excludes,
            } => {
                let mut groups = Vec::new();
                for (i, (pattern, f)) in rules.iter().enumerate() {
                    let e = self.lower(f, &format!("{at}/rules/{i}/1"), &[])?;
                    groups.push((pattern.clone(), e));
                }
                dispatch(&groups, &union(excludes, tag_excludes), *repeat)
            }
            Format::Repeat { content, min, max } => {
                let e = self.lower(content, &format!("{at}/content"), tag_excludes)?;
                match max {
                    Some(max) => Expr::Repeat(Box::new(e), *min, *max),
                    None => {
                        let mut items = vec![e.clone(); *min as usize];
                        items.push(Expr::star(e));
                        Expr::seq(items)
                    }
                }
            }
        })
    }

    /// `begin content end`, where `begin` starts with `cut`, which the
    /// caller has matched already.
    fn tag(&mut self, t: &Tag, at: &str, cut: &str) -> Result<Expr, SchemaError> {
        let ends: Vec<String> = t.end.iter().filter(|e| !e.is_empty()).cloned().collect();
        if ends.is_empty() && unlimited(&t.content) {
            return Err(invalid(
                at,
                "a tag whose content is unlimited (any_text, triggered_tags, dispatch) needs a non-empty end string",
            ));
        }
        let rest = t.begin.get(cut.len()..).unwrap_or("");
        // Text and the end as one lexeme, where that is exact: the same
        // language, and a lexer needs no dynamic lexing to end the text.
        if let Format::AnyText {
            excludes,
            max_chars: None,
        } = &*t.content
        {
            if let Some(p) = text::text_then_end(&union(excludes, &ends), &t.end) {
                let name = format!("ST_TAG_TEXT_{}", self.tag_texts.len());
                self.builder.terminal(&name, p);
                self.tag_texts.push((t.begin.clone(), name.clone()));
                return Ok(Expr::seq(vec![literal(rest), Expr::name(&name)]));
            }
        }
        let content = self.lower(&t.content, &format!("{at}/content"), &ends)?;
        Ok(Expr::seq(vec![
            literal(rest),
            content,
            Expr::alt(t.end.iter().map(|e| literal(e)).collect()),
        ]))
    }

    fn triggered(
        &mut self,
        t: &Triggered,
        at: &str,
        tag_excludes: &[String],
    ) -> Result<Expr, SchemaError> {
        // Each tag goes with the trigger its begin starts with.
        let mut groups: Vec<(String, Vec<Expr>)> = t
            .triggers
            .iter()
            .map(|tr| (tr.clone(), Vec::new()))
            .collect();
        let mut whole = Vec::new();
        for (i, tag) in t.tags.iter().enumerate() {
            let at = format!("{at}/tags/{i}");
            let mut matching = (t.triggers.iter().enumerate())
                .filter(|(_, tr)| tag.begin.starts_with(tr.as_str()));
            let Some((k, trigger)) = matching.next() else {
                return Err(invalid(
                    &at,
                    format!("the tag's begin {:?} starts with no trigger", tag.begin),
                ));
            };
            if let Some((_, other)) = matching.next() {
                return Err(invalid(
                    &at,
                    format!(
                        "the tag's begin {:?} starts with two triggers, {trigger:?} and {other:?}",
                        tag.begin
                    ),
                ));
            }
            let trigger = trigger.clone();
            groups[k].1.push(self.tag(tag, &at, &trigger)?);
            whole.push(self.tag(tag, &at, "")?);
        }
        let groups: Vec<(String, Expr)> = (groups.into_iter())
            .filter(|(_, alts)| !alts.is_empty())
            .map(|(tr, alts)| (tr, Expr::alt(alts)))
            .collect();
        let excluded = union(&t.excludes, tag_excludes);
        Ok(match (t.at_least_one, t.stop_after_first) {
            // Exactly one tag, nothing around it.
            (true, true) => Expr::alt(whole),
            // A tag first, then free text and tags.
            (true, false) => Expr::seq(vec![Expr::alt(whole), dispatch(&groups, &excluded, true)]),
            (false, stop) => dispatch(&groups, &excluded, !stop),
        })
    }
}

/// XGrammar's tag dispatch: free text in which the first occurrence of a
/// trigger is followed by its group; with `repeat`, free text and groups
/// alternate until the text ends, else the output ends after one group.
fn dispatch(groups: &[(String, Expr)], excluded: &[String], repeat: bool) -> Expr {
    let triggers: Vec<String> = groups.iter().map(|(t, _)| t.clone()).collect();
    let stops = union(&triggers, excluded);
    let tail = optional_text(text::free_text(&stops, None), None);
    let dispatched: Vec<Expr> = (groups.iter())
        .filter(|(t, _)| text::trigger_reachable(t, &stops, excluded))
        .map(|(t, g)| {
            Expr::seq(vec![
                Expr::Pattern(text::up_to_trigger(t, &stops, excluded), None),
                g.clone(),
            ])
        })
        .collect();
    if dispatched.is_empty() {
        return tail;
    }
    let one = Expr::alt(dispatched);
    if repeat {
        Expr::seq(vec![Expr::star(one), tail])
    } else {
        Expr::alt(vec![tail, one])
    }
}

/// Whether XGrammar counts `f` as unlimited: free text that only an end
/// string can close.
pub(crate) fn unlimited(f: &Format) -> bool {
    match f {
        Format::AnyText { .. } | Format::Dispatch { .. } => true,
        Format::Triggered(t) => !(t.at_least_one && t.stop_after_first),
        Format::Sequence(e) => e.last().is_some_and(unlimited),
        Format::Or(e) => e.iter().any(unlimited),
        Format::Repeat { content, .. } => unlimited(content),
        _ => false,
    }
}

/// Free text that may also be empty.
fn optional_text(pattern: gcd_core::grammar::TerminalPattern, max_chars: Option<u32>) -> Expr {
    if max_chars == Some(0) {
        return Expr::seq(Vec::new());
    }
    Expr::opt(Expr::Pattern(pattern, None))
}

/// A `regex` format: its whole matches; the empty match, if any, as `?`.
fn regex(pattern: &str, at: &str) -> Result<Expr, SchemaError> {
    let translated = xgrammar_regex(pattern).ok_or_else(|| {
        unsupported(
            at,
            format!("the regex {pattern:?} negates \\d or \\w inside a class, which is not supported yet"),
        )
    })?;
    let hir: Hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&translated)
        .map_err(|e| {
            unsupported(
                at,
                format!("the regex {pattern:?} is not one gcd reads (regex-automata syntax, no lookaround or backreferences): {e}"),
            )
        })?;
    if !hir.properties().look_set().is_empty() {
        return Err(unsupported(
            at,
            format!("the regex {pattern:?} has anchors or assertions, which a whole-match format cannot honour exactly"),
        ));
    }
    if hir.properties().maximum_len() == Some(0) {
        return Ok(Expr::seq(Vec::new()));
    }
    let nonempty = gcd_core::grammar::TerminalPattern::Combination(
        gcd_core::grammar::RegexCombination::And(vec![
            gcd_core::grammar::RegexCombination::Regex(translated),
            gcd_core::grammar::RegexCombination::Regex("(?s:.+)".into()),
        ]),
    );
    let e = Expr::Pattern(nonempty, None);
    Ok(if hir.properties().minimum_len() == Some(0) {
        Expr::opt(e)
    } else {
        e
    })
}

/// XGrammar's regex dialect in regex-automata's: `.` matches every
/// character, newlines included, and `\d`, `\w` (and their negations) are
/// ASCII, as in ECMAScript (XGrammar refuses `٥` for `\d`, regex-automata's
/// Unicode `\d` takes it). `None` for a negated class inside brackets.
fn xgrammar_regex(pattern: &str) -> Option<String> {
    let mut out = String::from("(?s:");
    let mut chars = pattern.chars();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(n) = chars.next() else {
                    out.push('\\');
                    break;
                };
                match (n, in_class) {
                    ('d', false) => out.push_str("[0-9]"),
                    ('D', false) => out.push_str("[^0-9]"),
                    ('w', false) => out.push_str("[0-9A-Za-z_]"),
                    ('W', false) => out.push_str("[^0-9A-Za-z_]"),
                    ('d', true) => out.push_str("0-9"),
                    ('w', true) => out.push_str("0-9A-Za-z_"),
                    ('D' | 'W', true) => return None,
                    _ => {
                        out.push('\\');
                        out.push(n);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                // A `]` or `^]` first is a literal in the class.
                let rest = chars.as_str();
                for lead in ["^]", "]", "^"] {
                    if let Some(r) = rest.strip_prefix(lead) {
                        out.push_str(lead);
                        chars = r.chars();
                        break;
                    }
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            c => out.push(c),
        }
    }
    out.push(')');
    Some(out)
}

/// `a` then the strings of `b` not in `a`.
fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    for s in b {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}
