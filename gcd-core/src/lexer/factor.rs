//! Common prefixes and suffixes pulled out of alternations before a regex
//! is determinized: `P A S|P B S` becomes `P (?:A|B) S`.
//!
//! The language is the same (concatenation distributes over union), but the
//! subset construction is not: it follows each branch's copy of `P` apart,
//! so a union of unanchored searches (`.*A.*|.*B.*`, which JSON Schema
//! writes for a `pattern` with a top-level `|` or an `anyOf` of `pattern`s)
//! determinizes into the product of every search's progress, where
//! `.*(?:A|B).*` needs one search. Seven date patterns in an `anyOf`
//! (MaskBench's o63198) took 158 ms to determinize as a union of searches
//! and 5 ms as one.

use regex_syntax::hir::{Capture, Hir, HirKind, Repetition};

/// `hir` with every alternation's common leading and trailing items
/// factored out, innermost first.
pub(super) fn factor(hir: &Hir) -> Hir {
    match hir.kind() {
        HirKind::Alternation(alts) => factor_alternation(alts.iter().map(factor).collect()),
        HirKind::Concat(items) => Hir::concat(items.iter().map(factor).collect()),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            sub: Box::new(factor(&r.sub)),
            ..r.clone()
        }),
        HirKind::Capture(c) => Hir::capture(Capture {
            sub: Box::new(factor(&c.sub)),
            ..c.clone()
        }),
        _ => hir.clone(),
    }
}

/// A branch as a sequence: a concatenation's items, or the branch alone.
fn items(h: &Hir) -> &[Hir] {
    match h.kind() {
        HirKind::Concat(items) => items,
        _ => std::slice::from_ref(h),
    }
}

fn factor_alternation(alts: Vec<Hir>) -> Hir {
    let seqs: Vec<&[Hir]> = alts.iter().map(items).collect();
    let (Some(first), Some(shortest)) = (seqs.first(), seqs.iter().map(|s| s.len()).min()) else {
        return Hir::alternation(alts);
    };
    let same = |at: &dyn Fn(&[Hir]) -> &Hir| seqs.iter().all(|s| at(s) == at(first));
    let mut prefix = 0;
    while prefix < shortest && same(&|s| &s[prefix]) {
        prefix += 1;
    }
    let mut suffix = 0;
    while prefix + suffix < shortest && same(&|s| &s[s.len() - 1 - suffix]) {
        suffix += 1;
    }
    if seqs.len() < 2 || prefix + suffix == 0 {
        return Hir::alternation(alts);
    }
    let middles = (seqs.iter())
        .map(|s| Hir::concat(s[prefix..s.len() - suffix].to_vec()))
        .collect();
    let mut out = first[..prefix].to_vec();
    out.push(Hir::alternation(middles));
    out.extend_from_slice(&first[first.len() - suffix..]);
    Hir::concat(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(re: &str) -> Hir {
        regex_syntax::Parser::new().parse(re).expect("a regex")
    }

    /// Whether `re` matches all of a string, by a regex-automata DFA of
    /// its printed form.
    fn matcher(re: &Hir) -> impl Fn(&str) -> bool {
        use regex_automata::dfa::{dense, Automaton};
        let dfa = dense::DFA::new(&format!("^(?:{re})$")).expect("builds");
        move |s| {
            let input = regex_automata::Input::new(s).anchored(regex_automata::Anchored::Yes);
            dfa.try_search_fwd(&input).expect("no quit bytes").is_some()
        }
    }

    #[test]
    fn shared_prefix_and_suffix_come_out_once() {
        let f = factor(&parse("x.*ab.*y|x.*cd.*y"));
        assert_eq!(f, parse("x.*(?:ab|cd).*y"));
        // Nothing shared: unchanged.
        assert_eq!(factor(&parse("ab|cd")), parse("ab|cd"));
        // A branch that is all prefix leaves an empty middle.
        assert_eq!(factor(&parse("a.*|a.*b")), parse("a.*(?:|b)"));
    }

    #[test]
    fn factoring_keeps_the_language() {
        let cases = [
            "x.*ab.*y|x.*cd.*y",
            "a.*|a.*b",
            "(?:a|ab)c|(?:a|ab)d",
            "[0-9]{2}-.*|[0-9]{2}|[0-9]{2}x",
            "(q(?:a+?|b)z|q(?:a|c)z)*",
            "a|a",
        ];
        let alphabet = ['a', 'b', 'c', 'd', 'x', 'y', 'q', 'z', '0', '1', '-'];
        for re in cases {
            let (h, f) = (matcher(&parse(re)), matcher(&factor(&parse(re))));
            // Every string over the alphabet up to length 4.
            let mut strings = vec![String::new()];
            for _ in 0..4 {
                let longer: Vec<String> = (strings.iter())
                    .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                    .collect();
                strings.extend(longer);
            }
            strings.sort();
            strings.dedup();
            for s in &strings {
                assert_eq!(h(s), f(s), "{re} on {s:?}");
            }
        }
    }
}
