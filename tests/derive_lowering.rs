//! The derive's grammars are lowered straight to the grammar IR; the Lark
//! text that `grammar_text` prints for a type must read back as that very
//! grammar (same terminals, rules and productions), so the text shown to
//! people is the grammar in use.

mod derive_types;

use std::collections::{BTreeMap, HashMap};

use derive_types::*;
use gcd::constrained::{grammar_text, Whitespace};
use gcd::core::compiled::CompiledGrammar;
use gcd::core::grammar::{Grammar, NtId, RuleKind, Symbol, Terminal, TerminalPattern};
use gcd::core::json::{to_grammar, ShapeSet};
use gcd::core::lark::parse_grammar;
use gcd::Constrained;

/// `g`'s rules other than those desugaring generated, each production
/// written out with generated rules expanded in place (Lark text shares
/// fewer generated rules, as its sugar carries source spans), and its
/// terminals without spans, regexes as the IR writes them (Lark text
/// escapes `/`).
fn normalized(g: Grammar, from_lark: bool) -> (Vec<Terminal>, Vec<(String, Vec<String>)>) {
    fn canon(g: &Grammar, s: Symbol, stack: &mut Vec<NtId>) -> String {
        match s {
            Symbol::T(t) => g.terminal(t).name.clone(),
            Symbol::N(n) if g.nonterminal(n).kind != RuleKind::Generated => {
                g.nonterminal(n).name.clone()
            }
            Symbol::N(n) => {
                if let Some(depth) = stack.iter().rposition(|&m| m == n) {
                    return format!("^{}", stack.len() - depth);
                }
                stack.push(n);
                let alts: Vec<String> = g
                    .productions_of(n)
                    .map(|(_, p)| rhs(g, &p.rhs, stack))
                    .collect();
                stack.pop();
                format!("({})", alts.join(" | "))
            }
        }
    }
    fn rhs(g: &Grammar, rhs: &[Symbol], stack: &mut Vec<NtId>) -> String {
        let parts: Vec<String> = rhs.iter().map(|&s| canon(g, s, stack)).collect();
        parts.join(" ")
    }
    let rules = (0..g.nonterminals.len() as u32)
        .map(NtId)
        .filter(|&n| g.nonterminal(n).kind != RuleKind::Generated)
        .map(|n| {
            let alts = g
                .productions_of(n)
                .map(|(_, p)| rhs(&g, &p.rhs, &mut Vec::new()))
                .collect();
            (g.nonterminal(n).name.clone(), alts)
        })
        .collect();
    let mut terminals = g.terminals;
    for t in &mut terminals {
        t.span = None;
        if let (true, TerminalPattern::Regex(re)) = (from_lark, &mut t.pattern) {
            *re = re.replace("\\/", "/");
        }
    }
    (terminals, rules)
}

fn check<T: Constrained + 'static>() {
    let name = std::any::type_name::<T>();
    for ws in [
        Whitespace::Compact,
        Whitespace::Spaced,
        Whitespace::SingleSpace,
        Whitespace::Json,
    ] {
        let text = grammar_text::<T>(ws).unwrap();
        let from_text = parse_grammar(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        let mut set = ShapeSet::new();
        let root = T::shape(&mut set);
        let lowered = to_grammar(&root, &set, ws).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            CompiledGrammar::new(&from_text).is_ok(),
            CompiledGrammar::new(&lowered).is_ok(),
            "{name} {ws:?}"
        );
        assert_eq!(
            normalized(from_text, true),
            normalized(lowered, false),
            "{name} {ws:?}\n{text}"
        );
    }
}

#[test]
fn lowered_grammars_are_what_grammar_text_reads() {
    check::<Point>();
    check::<Person>();
    check::<ToolCall>();
    check::<Unit>();
    check::<Shape2>();
    check::<External>();
    check::<Untagged>();
    check::<Tree>();
    check::<Wrapper<Point>>();
    check::<Newtype>();
    check::<Tuple3>();
    check::<Meters>();
    check::<Maps>();
    check::<Option<Option<Unit>>>();
    check::<Vec<[f32; 2]>>();
    check::<HashMap<String, (char, bool, ())>>();
    check::<BTreeMap<String, Vec<Tree>>>();
    check::<(u8, i16, u32, i64, u64, String)>();
}
