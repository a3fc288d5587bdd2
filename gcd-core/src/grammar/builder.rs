//! Building a [`Grammar`]: front ends describe rules as EBNF ([`Expr`]) and
//! [`GrammarBuilder`] checks names, collects every error with its span, and
//! desugars `?`, `*`, `+` and groups into fresh right-recursive rules, so
//! later stages only ever see plain productions.

use rustc_hash::FxHashMap;

use super::desugar::Desugar;
use super::expr::{Alternative, Expr};
use super::hints::HintDefs;
use super::{
    Grammar, MemberSet, Nonterminal, NtId, Production, RuleKind, Symbol, TermId, Terminal,
    TerminalPattern,
};
use crate::error::{Diagnostic, DiagnosticKind, Diagnostics, GrammarError, Span};

#[derive(Clone, Debug)]
struct RuleDef {
    name: String,
    kind: RuleKind,
    keep_all_tokens: bool,
    tight: bool,
    alternatives: Vec<Alternative>,
    span: Option<Span>,
}

/// Builds a [`Grammar`] from named terminals and EBNF rules, resolving names
/// and desugaring. Every problem is collected and reported by
/// [`build`](GrammarBuilder::build).
#[derive(Clone, Debug, Default)]
pub struct GrammarBuilder {
    terminals: Vec<Terminal>,
    rules: Vec<RuleDef>,
    /// Rules and terminals by name: a schema's long strings add a rule per
    /// chunk, thousands, and finding names by scanning was quadratic.
    rule_at: FxHashMap<String, usize>,
    terminal_at: FxHashMap<String, usize>,
    ignore: Vec<(String, Option<Span>)>,
    start: Option<String>,
    /// No fallback to the first rule: a grammar without a rule named
    /// `start` must be given one with [`start`](Self::start) (Lark text,
    /// where Lark and llguidance refuse such a grammar too).
    start_named: bool,
    errors: Vec<Diagnostic>,
    member_sets: Vec<MemberSetDef>,
    hints: HintDefs,
}

/// A [`MemberSet`] by rule names, resolved by `build`.
#[derive(Clone, Debug)]
struct MemberSetDef {
    name: String,
    required: Vec<bool>,
    repeatable: usize,
    nonempty: bool,
}

fn member_rule(set: &str, k: usize) -> String {
    format!("{set}__m{k}")
}

fn repeatable_rule(set: &str, k: usize) -> String {
    format!("{set}__r{k}")
}

fn more_rule(set: &str) -> String {
    format!("{set}__more")
}

fn next_rule(set: &str) -> String {
    format!("{set}__next")
}

impl GrammarBuilder {
    /// A builder with no terminals and no rules.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares a named terminal with priority 0.
    pub fn terminal(&mut self, name: &str, pattern: TerminalPattern) -> &mut Self {
        self.terminal_full(name, pattern, 0, None)
    }

    /// Declares a named terminal with a tie-breaking `priority` (higher
    /// wins) and its place in the source. A second terminal of the same
    /// name is a [`Duplicate`](DiagnosticKind::Duplicate) error; a name
    /// starting with `_` is left out of parse trees.
    pub fn terminal_full(
        &mut self,
        name: &str,
        pattern: TerminalPattern,
        priority: i32,
        span: Option<Span>,
    ) -> &mut Self {
        if let Some(prev) = self.terminal_at.get(name).map(|&i| &self.terminals[i]) {
            let d = Diagnostic::new(
                DiagnosticKind::Duplicate,
                span,
                format!("terminal `{name}` is defined twice"),
            )
            .with_note(prev.span, "first defined here");
            self.errors.push(d);
            return self;
        }
        self.terminal_at
            .insert(name.to_string(), self.terminals.len());
        self.terminals.push(Terminal {
            name: name.to_string(),
            pattern,
            priority,
            ignored: false,
            hidden: name.starts_with('_'),
            span,
        });
        self
    }

    /// Adds a rule; several alternatives may be given at once. Calling it
    /// twice with the same name is a duplicate-definition error.
    pub fn rule(&mut self, name: &str, alternatives: Vec<Expr>) -> &mut Self {
        let alts = alternatives
            .into_iter()
            .map(|expr| Alternative {
                expr,
                alias: None,
                span: None,
            })
            .collect();
        let kind = if name.starts_with('_') {
            RuleKind::Hidden
        } else {
            RuleKind::Normal
        };
        self.rule_full(name, kind, alts, None)
    }

    /// Adds a rule of the given `kind` (not inferred from the name, unlike
    /// [`rule`](Self::rule)) whose alternatives carry aliases and spans.
    /// Calling it twice with the same name is a duplicate-definition error.
    pub fn rule_full(
        &mut self,
        name: &str,
        kind: RuleKind,
        alternatives: Vec<Alternative>,
        span: Option<Span>,
    ) -> &mut Self {
        if let Some(prev) = self.rule_at.get(name).map(|&i| &self.rules[i]) {
            let d = Diagnostic::new(
                DiagnosticKind::Duplicate,
                span,
                format!("rule `{name}` is defined twice"),
            )
            .with_note(prev.span, "first defined here");
            self.errors.push(d);
            return self;
        }
        self.rule_at.insert(name.to_string(), self.rules.len());
        self.rules.push(RuleDef {
            name: name.to_string(),
            kind,
            keep_all_tokens: false,
            tight: false,
            alternatives,
            span,
        });
        self
    }

    /// Adds rule `name`: the `members` (each with whether it is required)
    /// in any order, each at most once, and the `repeatable` ones any
    /// number of times, between `separator`s (see [`MemberSet`]). Each
    /// member must begin with a terminal that tells it from the others.
    pub fn member_set(
        &mut self,
        name: &str,
        members: Vec<(Expr, bool)>,
        repeatable: Vec<Expr>,
        separator: Expr,
        nonempty: bool,
    ) -> &mut Self {
        if members.is_empty() && repeatable.is_empty() {
            self.errors.push(Diagnostic::new(
                DiagnosticKind::Unsupported,
                None,
                format!("member list `{name}` has no members"),
            ));
            return self;
        }
        let more = more_rule(name);
        let next = next_rule(name);
        let generated = |expr| Alternative {
            expr,
            alias: None,
            span: None,
        };
        let mut heads = Vec::new();
        let mut required = Vec::new();
        for (k, (e, req)) in members.into_iter().enumerate() {
            let m = member_rule(name, k);
            self.rule_full(&m, RuleKind::Generated, vec![generated(e)], None);
            heads.push(m);
            required.push(req);
        }
        let n_repeatable = repeatable.len();
        for (k, e) in repeatable.into_iter().enumerate() {
            let m = repeatable_rule(name, k);
            self.rule_full(&m, RuleKind::Generated, vec![generated(e)], None);
            heads.push(m);
        }
        let then_more = |m: &String| generated(Expr::seq(vec![Expr::name(m), Expr::name(&more)]));
        let mut list: Vec<Alternative> = heads.iter().map(then_more).collect();
        list.push(generated(Expr::seq(vec![])));
        self.rule_full(name, RuleKind::Generated, list, None);
        self.rule_full(
            &more,
            RuleKind::Generated,
            vec![
                generated(Expr::seq(vec![separator, Expr::name(&next)])),
                generated(Expr::seq(vec![])),
            ],
            None,
        );
        self.rule_full(
            &next,
            RuleKind::Generated,
            heads.iter().map(then_more).collect(),
            None,
        );
        self.member_sets.push(MemberSetDef {
            name: name.to_string(),
            required,
            repeatable: n_repeatable,
            nonempty,
        });
        self
    }

    /// Marks rule `name` (already added) as Lark's `!rule`: its parse-tree
    /// nodes keep every token. Has no effect on the language.
    pub fn keep_all_tokens(&mut self, name: &str) -> &mut Self {
        if let Some(r) = self.rule_at.get(name).map(|&i| &mut self.rules[i]) {
            r.keep_all_tokens = true;
        }
        self
    }

    /// Marks rule `name` (already added) as tight: a lexeme that starts
    /// while it is the parser's next symbol has no ignored terminal before
    /// it (the chunks of one long JSON string). It must not derive the
    /// empty string and may follow only a terminal (checked when the
    /// grammar compiles).
    pub fn tight(&mut self, name: &str) -> &mut Self {
        if let Some(r) = self.rule_at.get(name).map(|&i| &mut self.rules[i]) {
            r.tight = true;
        }
        self
    }

    /// Caps every lexeme of terminal `name` at `max_tokens` tokens in any
    /// matcher made from the grammar (llguidance's `[max_tokens=N]`; see
    /// `Matcher::set_lexeme_cap` for what a cap promises). Such a terminal
    /// is not shared with an anonymous pattern elsewhere.
    pub fn lexeme_cap(&mut self, name: &str, max_tokens: u32, span: Option<Span>) -> &mut Self {
        self.hints.caps.push((name.to_string(), max_tokens, span));
        self
    }

    /// Gives terminal `name`'s lexemes a sampling temperature, which
    /// callers read back (llguidance's `[temperature=T]`); it changes no
    /// mask. Such a terminal is not shared with an anonymous pattern
    /// elsewhere.
    pub fn temperature(
        &mut self,
        name: &str,
        temperature: super::Temperature,
        span: Option<Span>,
    ) -> &mut Self {
        (self.hints.temperatures).push((name.to_string(), temperature, span));
        self
    }

    /// Captures each derivation of rule `rule` under `name` (llguidance's
    /// `[capture]`), read back from a finished output's parse tree. The
    /// rule must show in parse trees as itself: a plain rule (not `?` nor
    /// `_`) whose alternatives have no alias and whose name no alias takes.
    pub fn capture(&mut self, rule: &str, name: &str, span: Option<Span>) -> &mut Self {
        self.capture_part(rule, name, super::CapturePart::Whole, span)
    }

    /// [`capture`](Self::capture) of a part of each match (a rule with
    /// llguidance's `suffix=`: its capture leaves the suffix out, and
    /// `stop_capture` holds only the suffix).
    pub fn capture_part(
        &mut self,
        rule: &str,
        name: &str,
        part: super::CapturePart,
        span: Option<Span>,
    ) -> &mut Self {
        (self.hints.captures).push((rule.to_string(), name.to_string(), part, span));
        self
    }

    /// Marks a named terminal as ignored between lexemes.
    pub fn ignore(&mut self, name: &str, span: Option<Span>) -> &mut Self {
        self.ignore.push((name.to_string(), span));
        self
    }

    /// Declares an anonymous ignored terminal and returns its name.
    pub fn ignore_pattern(&mut self, pattern: TerminalPattern, span: Option<Span>) -> String {
        let name = format!("__IGNORE_{}", self.ignore.len());
        self.terminal_full(&name, pattern, 0, span);
        self.ignore(&name, span);
        name
    }

    /// The start rule; defaults to `start`, else the first rule (unless
    /// [`require_start`](Self::require_start) was called).
    pub fn start(&mut self, name: &str) -> &mut Self {
        self.start = Some(name.to_string());
        self
    }

    /// Refuses to start from the first rule when no rule is named `start`
    /// and none was given: the Lark front end asks for this, since a Lark
    /// grammar without `start` is refused by Lark and llguidance, and its
    /// first rule is often a helper.
    pub fn require_start(&mut self) -> &mut Self {
        self.start_named = true;
        self
    }

    /// Adds every terminal and rule of the built grammar `g`, each name
    /// prefixed with `prefix__`, and returns the name its start rule now
    /// has: a JSON Schema's grammar inside a chat format (`%json { ... }`
    /// in a Lark file). Member sets and hints (caps, temperatures,
    /// captures) carry over. Spans become `span` (the place that asked for
    /// the grammar). A grammar that ignores terminals would ignore them
    /// everywhere in this one, so that is an error.
    pub fn embed(&mut self, prefix: &str, g: &Grammar, span: Option<Span>) -> String {
        let name = |n: &str| format!("{prefix}__{n}");
        if let Some(t) = g.terminals.iter().find(|t| t.ignored) {
            self.errors.push(Diagnostic::new(
                DiagnosticKind::Unsupported,
                span,
                format!(
                    "the embedded grammar ignores terminal `{}` between lexemes, which would apply to the whole grammar; embed one without ignored terminals",
                    t.name
                ),
            ));
        }
        for t in g.terminals.iter().filter(|t| !t.ignored) {
            self.terminal_full(&name(&t.name), t.pattern.clone(), t.priority, span);
        }
        let sym = |s: &Symbol| match *s {
            Symbol::T(t) => Expr::Name(name(&g.terminal(t).name), span),
            Symbol::N(n) => Expr::Name(name(&g.nonterminal(n).name), span),
        };
        let mut alternatives: Vec<Vec<Alternative>> = vec![Vec::new(); g.nonterminals.len()];
        for p in &g.productions {
            alternatives[p.lhs.index()].push(Alternative {
                expr: Expr::Seq(p.rhs.iter().map(sym).collect()),
                alias: p.alias.clone(),
                span,
            });
        }
        for (n, alts) in g.nonterminals.iter().zip(alternatives) {
            let rule = name(&n.name);
            self.rule_full(&rule, n.kind, alts, span);
            if n.keep_all_tokens {
                self.keep_all_tokens(&rule);
            }
            if n.tight {
                self.tight(&rule);
            }
        }
        for &(t, n) in &g.hints.lexeme_caps {
            self.lexeme_cap(&name(&g.terminal(t).name), n, span);
        }
        for &(t, x) in &g.hints.temperatures {
            self.temperature(&name(&g.terminal(t).name), x, span);
        }
        for (rule, as_name, part) in &g.hints.captures {
            self.capture_part(&name(rule), as_name, *part, span);
        }
        for m in &g.member_sets {
            let list = &g.nonterminal(m.list).name;
            // `build` finds a set's rules by these names.
            let named_as_built = g.nonterminal(m.more).name == more_rule(list)
                && g.nonterminal(m.next).name == next_rule(list)
                && (m.members.iter().enumerate())
                    .all(|(k, (n, _))| g.nonterminal(*n).name == member_rule(list, k))
                && (m.repeatable.iter().enumerate())
                    .all(|(k, n)| g.nonterminal(*n).name == repeatable_rule(list, k));
            if !named_as_built {
                self.errors.push(Diagnostic::new(
                    DiagnosticKind::Unsupported,
                    span,
                    format!("the embedded grammar's member list `{list}` was not made by a GrammarBuilder"),
                ));
                continue;
            }
            self.member_sets.push(MemberSetDef {
                name: name(list),
                required: m.members.iter().map(|&(_, r)| r).collect(),
                repeatable: m.repeatable.len(),
                nonempty: m.nonempty,
            });
        }
        name(&g.nonterminal(g.start).name)
    }

    /// Records a problem found by a front end, reported by `build`.
    pub fn push_error(&mut self, d: Diagnostic) {
        self.errors.push(d);
    }

    /// Whether a rule called `name` was added.
    pub fn has_rule(&self, name: &str) -> bool {
        self.rule_at.contains_key(name)
    }

    /// Whether a terminal called `name` was declared (anonymous terminals
    /// are only made by [`build`](Self::build)).
    pub fn has_terminal(&self, name: &str) -> bool {
        self.terminal_at.contains_key(name)
    }

    /// Resolves names, desugars EBNF into plain productions and returns the
    /// grammar, or an error listing every problem found (those pushed
    /// earlier included): names defined twice or never (the start rule
    /// included), no rules at all,
    /// ignored terminals used in rules, member sets with no single-terminal
    /// separator.
    pub fn build(&self) -> Result<Grammar, GrammarError> {
        let mut diags = Diagnostics(self.errors.clone());
        let mut terminals = self.terminals.clone();
        let mut term_index: FxHashMap<String, TermId> = terminals
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), TermId(i as u32)))
            .collect();
        for (name, span) in &self.ignore {
            match term_index.get(name) {
                Some(&t) => terminals[t.index()].ignored = true,
                None => diags.error(
                    DiagnosticKind::Undefined,
                    *span,
                    format!("`%ignore {name}`: terminal `{name}` is not defined"),
                ),
            }
        }
        if self.rules.is_empty() {
            diags.error(
                DiagnosticKind::Syntax,
                None,
                "the grammar has no rules; expected at least a `start` rule",
            );
            return Err(GrammarError::new(diags.0));
        }
        let mut nonterminals: Vec<Nonterminal> = self
            .rules
            .iter()
            .map(|r| Nonterminal {
                name: r.name.clone(),
                kind: r.kind,
                keep_all_tokens: r.keep_all_tokens,
                tight: r.tight,
                span: r.span,
            })
            .collect();
        let nt_index: FxHashMap<String, NtId> = nonterminals
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), NtId(i as u32)))
            .collect();
        for r in &self.rules {
            if let Some(&t) = term_index.get(&r.name) {
                diags.push(
                    Diagnostic::new(
                        DiagnosticKind::Duplicate,
                        r.span,
                        format!("`{}` is defined both as a rule and as a terminal", r.name),
                    )
                    .with_note(terminals[t.index()].span, "terminal defined here"),
                );
            }
        }
        let start_name = match &self.start {
            Some(name) => name.clone(),
            None if nt_index.contains_key("start") => "start".to_string(),
            None if self.start_named => {
                let names: Vec<String> = (self.rules.iter())
                    .filter(|r| !r.name.starts_with("__"))
                    .take(8)
                    .map(|r| format!("`{}`", r.name))
                    .collect();
                diags.error(
                    DiagnosticKind::Undefined,
                    None,
                    format!(
                        "no rule named `start`: name the start rule `start`, or give one \
                         explicitly (`GrammarBuilder::start`, `gcd --start NAME`); rules: {}",
                        names.join(", ")
                    ),
                );
                return Err(GrammarError::new(diags.0));
            }
            None => self.rules[0].name.clone(),
        };
        let Some(&start) = nt_index.get(&start_name) else {
            diags.error(
                DiagnosticKind::Undefined,
                None,
                format!("start rule `{start_name}` is not defined"),
            );
            return Err(GrammarError::new(diags.0));
        };

        let mut desugar = Desugar {
            terminals: &mut terminals,
            term_index: &mut term_index,
            nt_index: &nt_index,
            nonterminals: &mut nonterminals,
            productions: Vec::new(),
            diags: &mut diags,
            memo: FxHashMap::default(),
            undefined: FxHashMap::default(),
            by_pattern: FxHashMap::default(),
            span: None,
        };
        for (i, t) in desugar.terminals.iter().enumerate().rev() {
            if !t.ignored && !self.hints.has_terminal(&t.name) {
                desugar
                    .by_pattern
                    .insert(t.pattern.clone(), TermId(i as u32));
            }
        }
        for (i, r) in self.rules.iter().enumerate() {
            for alt in &r.alternatives {
                desugar.span = alt.span.or(r.span);
                let rhs = desugar.seq(&alt.expr, &r.name);
                desugar.productions.push(Production {
                    lhs: NtId(i as u32),
                    rhs,
                    alias: alt.alias.clone(),
                    span: alt.span.or(r.span),
                });
            }
        }
        let productions = std::mem::take(&mut desugar.productions);
        for t in &terminals {
            if t.ignored
                && productions
                    .iter()
                    .any(|p| p.rhs.iter().any(|s| *s == Symbol::T(term_index[&t.name])))
            {
                diags.error(
                    DiagnosticKind::Unsupported,
                    t.span,
                    format!("terminal `{}` is %ignore'd and also used in a rule; an ignored terminal is dropped wherever it matches, so the rule could never see it", t.name),
                );
            }
        }
        let mut member_sets = Vec::new();
        for d in &self.member_sets {
            let nt = |n: &str| nt_index[n];
            let more = nt(&more_rule(&d.name));
            let separator = productions
                .iter()
                .find(|p| p.lhs == more && !p.rhs.is_empty())
                .and_then(|p| match p.rhs[..] {
                    [Symbol::T(t), _] => Some(t),
                    _ => None,
                });
            let Some(separator) = separator else {
                diags.error(
                    DiagnosticKind::Unsupported,
                    None,
                    format!(
                        "member list `{}`: the separator must be one terminal",
                        d.name
                    ),
                );
                continue;
            };
            member_sets.push(MemberSet {
                list: nt(&d.name),
                more,
                next: nt(&next_rule(&d.name)),
                members: (d.required.iter().enumerate())
                    .map(|(k, &r)| (nt(&member_rule(&d.name, k)), r))
                    .collect(),
                repeatable: (0..d.repeatable)
                    .map(|k| nt(&repeatable_rule(&d.name, k)))
                    .collect(),
                separator,
                nonempty: d.nonempty,
            });
        }
        let hints = (self.hints).resolve(&terminals, &nonterminals, &productions, &mut diags);
        diags.into_result()?;
        Ok(Grammar {
            terminals,
            nonterminals,
            productions,
            start,
            member_sets,
            hints,
        })
    }
}
