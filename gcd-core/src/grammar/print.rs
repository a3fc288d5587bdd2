//! Any [`Grammar`] as Lark text (gcd's subset), for people to read: the
//! grammar a JSON Schema, a Rust type, a chat format or a `%json` rule
//! became, the way its author would have written it.
//!
//! The text reads back through [`lark::parse_grammar`](crate::lark) as a
//! grammar that accepts the same strings, with three exceptions that Lark
//! has no syntax for and that are printed as comments: a [`MemberSet`]'s
//! free order (its rules, which allow any order and repeats, are printed),
//! a rule's `tight` flag, and a start rule not named `start` (printed with
//! a `start` rule in front that derives it). Generated rules fold back into
//! the sugar they came from ([`Folded`]); names that Lark would read as
//! something else (`call__STRING` is a rule name in Lark, a rule name may
//! not hold `{`) are changed into ones it reads alike.
//!
//! [`MemberSet`]: super::MemberSet

use std::collections::HashSet;
use std::fmt::{self, Write};

use super::sugar::{Folded, Sugar};
use super::{Grammar, NtId, RegexCombination, RuleKind, Symbol, TermId, Terminal, TerminalPattern};

/// Lines longer than this put each alternative on a line of its own.
const LINE: usize = 100;

/// Writes grammars as Lark text (see the [module docs](self)).
#[derive(Clone, Debug, Default)]
pub struct Printer {
    _priv: (),
}

impl Printer {
    /// A printer.
    pub fn new() -> Printer {
        Printer::default()
    }

    /// Writes `g` to `wtr`: the start rule, the other rules, the
    /// terminals they name, and the `%ignore`s.
    pub fn print<W: Write>(&mut self, g: &Grammar, mut wtr: W) -> fmt::Result {
        let names = Names::new(g);
        let folded = Folded::new(g);
        let w = Writer { g, names: &names };
        if names.rule(g.start) != "start" {
            writeln!(wtr, "start: {}", names.rule(g.start))?;
        }
        let rules = std::iter::once(g.start).chain(
            (0..g.nonterminals.len() as u32)
                .map(NtId)
                .filter(|&n| n != g.start),
        );
        for n in rules.filter(|&n| !folded.is_folded(n)) {
            w.rule(&folded, n, &mut wtr)?;
        }
        let used = used_terminals(g);
        for (i, t) in g.terminals.iter().enumerate() {
            if let (true, Some(name)) = (used[i], names.terminal(TermId(i as u32))) {
                let priority = match t.priority {
                    0 => String::new(),
                    p => format!(".{p}"),
                };
                writeln!(wtr, "{name}{priority}: {}", Pattern(&t.pattern))?;
            }
        }
        for (i, t) in g.terminals.iter().enumerate().filter(|(_, t)| t.ignored) {
            match names.terminal(TermId(i as u32)) {
                Some(name) => writeln!(wtr, "%ignore {name}")?,
                None => writeln!(wtr, "%ignore {}", Pattern(&t.pattern))?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for Grammar {
    /// The grammar as Lark text ([`Printer`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Printer::new().print(self, f)
    }
}

/// Which terminals some production uses or the lexer ignores: a terminal
/// that is neither never takes part in lexing, so it is left out.
fn used_terminals(g: &Grammar) -> Vec<bool> {
    let mut used: Vec<bool> = g.terminals.iter().map(|t| t.ignored).collect();
    for p in &g.productions {
        for s in &p.rhs {
            if let Symbol::T(t) = s {
                used[t.index()] = true;
            }
        }
    }
    used
}

/// The names rules and terminals are printed under, each one that Lark
/// reads as the same kind of thing, and no two alike.
struct Names {
    rules: Vec<String>,
    /// `None` for a terminal written in place (an anonymous literal or
    /// regex, a special token).
    terminals: Vec<Option<String>>,
}

impl Names {
    fn new(g: &Grammar) -> Names {
        let folded_away = |n: usize| g.nonterminals[n].kind == RuleKind::Generated;
        let mut taken: HashSet<String> = HashSet::new();
        // `start` is the start rule's, whatever else is so named.
        taken.insert("start".to_string());
        let rules = (0..g.nonterminals.len())
            .map(|i| {
                let r = g.nonterminal(NtId(i as u32));
                let plain = matches!(r.kind, RuleKind::Normal | RuleKind::InlineSingle);
                if i == g.start.index() && r.name == "start" && plain {
                    return "start".to_string();
                }
                let hidden = matches!(r.kind, RuleKind::Hidden) || folded_away(i);
                unique(&mut taken, lark_name(&r.name, hidden, false))
            })
            .collect();
        let mut taken = HashSet::new();
        let terminals = g
            .terminals
            .iter()
            .map(|t| {
                (!written_in_place(t))
                    .then(|| unique(&mut taken, lark_name(&t.name, t.hidden, true)))
            })
            .collect();
        Names { rules, terminals }
    }

    fn rule(&self, n: NtId) -> &str {
        &self.rules[n.index()]
    }

    fn terminal(&self, t: TermId) -> Option<&str> {
        self.terminals[t.index()].as_deref()
    }
}

/// Whether `t` is written where it is used rather than declared: an
/// anonymous literal or regex (which reads back as the same terminal), or
/// a special token (which Lark has no declaration for).
fn written_in_place(t: &Terminal) -> bool {
    let anonymous = t.name.contains("__ANON") || t.name.starts_with("__IGNORE_");
    match t.pattern {
        TerminalPattern::Special(_) => true,
        TerminalPattern::Literal { .. } | TerminalPattern::Regex(_) => anonymous && t.priority == 0,
        TerminalPattern::Intersection(_) | TerminalPattern::Combination(_) => false,
    }
}

/// `name` as Lark reads a rule's (lower case) or a terminal's (upper case)
/// name, `_`-prefixed when hidden from parse trees: other characters become
/// `_`, and a name that would not start with a letter gets one.
fn lark_name(name: &str, hidden: bool, terminal: bool) -> String {
    let body: String = name
        .trim_start_matches('_')
        .chars()
        .map(|c| match c {
            c if c.is_ascii_alphanumeric() && terminal => c.to_ascii_uppercase(),
            c if c.is_ascii_alphanumeric() => c.to_ascii_lowercase(),
            _ => '_',
        })
        .collect();
    let lead = if body.starts_with(|c: char| c.is_ascii_alphabetic()) {
        ""
    } else if terminal {
        "T"
    } else {
        "r"
    };
    let under = if !hidden {
        ""
    } else if name.starts_with("__") {
        "__"
    } else {
        "_"
    };
    format!("{under}{lead}{body}")
}

/// `name`, or `name_2`, `name_3`… if taken; now taken.
fn unique(taken: &mut HashSet<String>, name: String) -> String {
    let mut out = name.clone();
    let mut k = 2;
    while !taken.insert(out.clone()) {
        out = format!("{name}_{k}");
        k += 1;
    }
    out
}

/// Writes rules and expressions under the printed names.
struct Writer<'a> {
    g: &'a Grammar,
    names: &'a Names,
}

impl Writer<'_> {
    /// `!?name: alt | alt -> alias`, with the comments Lark has no syntax for.
    fn rule<W: Write>(&self, folded: &Folded, n: NtId, out: &mut W) -> fmt::Result {
        let g = self.g;
        let r = g.nonterminal(n);
        for m in g.member_sets.iter().filter(|m| m.list == n) {
            let members: Vec<&str> = m.members.iter().map(|&(k, _)| self.names.rule(k)).collect();
            writeln!(
                out,
                "// {} takes {} in any order, each at most once; these rules also allow repeats",
                self.names.rule(n),
                members.join(", ")
            )?;
        }
        if r.tight {
            writeln!(
                out,
                "// tight: no ignored text before a lexeme that starts here"
            )?;
        }
        let mut head = String::new();
        if r.keep_all_tokens {
            head.push('!');
        }
        if r.kind == RuleKind::InlineSingle {
            head.push('?');
        }
        head.push_str(self.names.rule(n));
        let aliases = g.productions_of(n).map(|(_, p)| p.alias.as_deref());
        let alts: Vec<String> = folded
            .alternatives(n)
            .iter()
            .zip(aliases)
            .map(|(e, alias)| {
                let mut s = String::new();
                match e {
                    Sugar::Alt(_) => self.atom(e, &mut s),
                    _ => self.expr(e, &mut s),
                }
                .and_then(|()| match alias {
                    Some(a) => write!(s, " -> {a}"),
                    None => Ok(()),
                })
                .map(|()| s)
            })
            .collect::<Result<_, _>>()?;
        let one_line = head.len() + alts.iter().map(|a| a.len() + 3).sum::<usize>();
        if one_line <= LINE || alts.len() < 2 {
            writeln!(out, "{head}: {}", alts.join(" | "))
        } else {
            writeln!(out, "{head}: {}", alts[0])?;
            for a in &alts[1..] {
                writeln!(out, "    | {a}")?;
            }
            Ok(())
        }
    }

    fn expr<W: Write>(&self, e: &Sugar, out: &mut W) -> fmt::Result {
        match e {
            Sugar::Symbol(Symbol::N(n)) => out.write_str(self.names.rule(*n)),
            Sugar::Symbol(Symbol::T(t)) => match self.names.terminal(*t) {
                Some(name) => out.write_str(name),
                None => write!(out, "{}", Pattern(&self.g.terminal(*t).pattern)),
            },
            Sugar::Seq(items) if items.is_empty() => out.write_str("\"\""),
            Sugar::Seq(items) => self.joined(items, " ", out),
            Sugar::Alt(alts) => self.joined(alts, " | ", out),
            Sugar::Opt(e) => {
                out.write_char('[')?;
                self.expr(e, out)?;
                out.write_char(']')
            }
            Sugar::Star(e) => self.atom(e, out).and_then(|()| out.write_char('*')),
            Sugar::Plus(e) => self.atom(e, out).and_then(|()| out.write_char('+')),
            Sugar::UpTo(e, n) => self.atom(e, out).and_then(|()| write!(out, " ~ 0..{n}")),
        }
    }

    /// `items` joined by `sep`, an alternation among them in parentheses.
    fn joined<W: Write>(&self, items: &[Sugar], sep: &str, out: &mut W) -> fmt::Result {
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.write_str(sep)?;
            }
            match item {
                Sugar::Alt(_) => self.atom(item, out)?,
                _ => self.expr(item, out)?,
            }
        }
        Ok(())
    }

    /// `e` as one item: in parentheses unless it is one already.
    fn atom<W: Write>(&self, e: &Sugar, out: &mut W) -> fmt::Result {
        match e {
            Sugar::Symbol(_) | Sugar::Opt(_) => self.expr(e, out),
            _ => {
                out.write_char('(')?;
                self.expr(e, out)?;
                out.write_char(')')
            }
        }
    }
}

/// A terminal's pattern as Lark writes it.
struct Pattern<'p>(&'p TerminalPattern);

impl fmt::Display for Pattern<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            TerminalPattern::Literal {
                text,
                case_insensitive,
            } => {
                literal(text, f)?;
                if *case_insensitive {
                    f.write_char('i')?;
                }
                Ok(())
            }
            TerminalPattern::Regex(re) => regex(re, f),
            // Spelled as the combination it reads back as.
            TerminalPattern::Intersection(res) => {
                let parts = res.iter().cloned().map(RegexCombination::Regex).collect();
                combination(&RegexCombination::And(parts), f)
            }
            TerminalPattern::Combination(c) => combination(c, f),
            TerminalPattern::Special(t) => write!(f, "{t}"),
        }
    }
}

/// `text` as a Lark literal: `"` and `\` escaped, line breaks and tabs as
/// `\n` `\r` `\t`, other control characters as `\uXXXX`.
fn literal(text: &str, f: &mut dyn Write) -> fmt::Result {
    f.write_char('"')?;
    for c in text.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' | '\r' | '\t' => f.write_str(line_break(c))?,
            c if c.is_control() => write!(f, "\\u{:04x}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

/// `\n`, `\r` or `\t` as its escape, which both literals and regexes
/// read: what keeps the text on its line.
fn line_break(c: char) -> &'static str {
    match c {
        '\n' => "\\n",
        '\r' => "\\r",
        _ => "\\t",
    }
}

/// `re` as a Lark `/regex/`: an unescaped `/` is escaped, and line breaks
/// and other control characters are written as escapes, so that the regex
/// stays on its line. A regex the Lark reader would read otherwise (it
/// takes Python's syntax, see [`crate::lark`]) is written as regex-syntax
/// prints it, with every class spelled out.
fn regex(re: &str, f: &mut dyn Write) -> fmt::Result {
    if read_otherwise(re) {
        if let Ok(hir) = regex_syntax::Parser::new().parse(re) {
            return slashed(&hir.to_string(), f);
        }
    }
    slashed(re, f)
}

/// Whether Lark's reader of Python regexes would read `re` (regex-syntax)
/// as another language: `\s` and `\w` are Python's there, `\<` `\>` `\Z`
/// plain or other assertions, and a `[`, `&&`, `--` or `~~` inside a class
/// literal text.
fn read_otherwise(re: &str) -> bool {
    let mut class = 0usize;
    let mut chars = re.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if matches!(chars.next(), Some('s' | 'S' | 'w' | 'W' | '<' | '>' | 'Z')) {
                    return true;
                }
            }
            '[' if class > 0 => return true,
            '[' => {
                class = 1;
                // A `]` or `^]` first is literal.
                if chars.peek() == Some(&'^') {
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                }
            }
            ']' => class = 0,
            '&' | '-' | '~' if class > 0 && chars.peek() == Some(&c) => return true,
            _ => {}
        }
    }
    false
}

/// `re` between slashes, escaped as [`regex`] says.
fn slashed(re: &str, f: &mut dyn Write) -> fmt::Result {
    f.write_char('/')?;
    let mut chars = re.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                f.write_char('\\')?;
                if let Some(next) = chars.next() {
                    f.write_char(next)?;
                }
            }
            '/' => f.write_str("\\/")?,
            '\n' | '\r' | '\t' => f.write_str(line_break(c))?,
            c if c.is_control() => write!(f, "\\x{{{:x}}}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('/')
}

/// A combination of regexes in llguidance's `&` / `|` / `~`, fully
/// parenthesized.
fn combination(c: &RegexCombination, f: &mut dyn Write) -> fmt::Result {
    let join = |f: &mut dyn Write, parts: &[RegexCombination], op: &str| -> fmt::Result {
        f.write_char('(')?;
        for (i, p) in parts.iter().enumerate() {
            if i > 0 {
                f.write_str(op)?;
            }
            combination(p, f)?;
        }
        f.write_char(')')
    };
    match c {
        RegexCombination::Regex(re) => regex(re, f),
        RegexCombination::And(parts) => join(f, parts, " & "),
        RegexCombination::Or(parts) => join(f, parts, " | "),
        RegexCombination::Not(p) => {
            f.write_char('~')?;
            combination(p, f)
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
