//! The automaton of a boolean combination of regexes (llguidance's `&` and
//! `~` in Lark terminals): one product of the leaves' automata, accepting
//! where the combination's formula holds for the leaves' verdicts. A
//! complement needs every leaf's verdict on every string, so the product
//! keeps tuples in which some leaves have stopped ([`DEAD`]: that leaf
//! rejects from there on) and drops a tuple only once the formula is false
//! whatever the live leaves do.

use super::dfa::{DfaError, TerminalDfa};
use super::DEAD;
use crate::grammar::{RegexCombination, UTF8_TEXT};

/// The combination with `~`'s universe made explicit: a combination with a
/// `~` is limited to valid UTF-8 text (see [`RegexCombination`]).
fn within_text(c: &RegexCombination) -> RegexCombination {
    if c.has_not() {
        RegexCombination::And(vec![c.clone(), RegexCombination::Regex(UTF8_TEXT.into())])
    } else {
        c.clone()
    }
}

/// The leaves' automata, in [`RegexCombination::leaves`] order, each
/// allowed to match the empty string (only the combination may not).
fn leaf_dfas(c: &RegexCombination) -> Result<(Vec<String>, Vec<TerminalDfa>), DfaError> {
    let leaves: Vec<String> = c.leaves().into_iter().map(str::to_string).collect();
    let dfas = leaves
        .iter()
        .map(|r| TerminalDfa::build(r, true))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((leaves, dfas))
}

/// Evaluates `c` with each leaf's verdict read from its automaton's state
/// in `states` (`None` for a live, non-accepting state when `settled` is
/// false: it may still accept later).
fn verdict(
    c: &RegexCombination,
    leaves: &[String],
    dfas: &[TerminalDfa],
    states: &[u32],
    settled: bool,
) -> Option<bool> {
    c.eval(&|leaf: &str| {
        let i = leaves.iter().position(|l| l == leaf)?;
        match states[i] {
            DEAD => Some(false),
            q if settled => Some(dfas[i].is_accepting(q)),
            _ => None,
        }
    })
}

impl TerminalDfa {
    /// The lexemes `c` matches, cached under [`RegexCombination::key`].
    /// An error if it matches the empty string or nothing; refused past
    /// the product's state limit.
    pub fn combination(c: &RegexCombination) -> Result<TerminalDfa, DfaError> {
        Self::new_with(&c.key(), || {
            let c = within_text(c);
            let (leaves, dfas) = leaf_dfas(&c)?;
            Self::product_by(
                &dfas,
                |states| verdict(&c, &leaves, &dfas, states, true) == Some(true),
                |states| verdict(&c, &leaves, &dfas, states, false) != Some(false),
            )
        })
    }

    /// Whether `c` matches the empty string (the front end then uses its
    /// non-empty part, as for a regex that matches it).
    pub fn combination_matches_empty(c: &RegexCombination) -> Result<bool, DfaError> {
        let c = within_text(c);
        let (leaves, dfas) = leaf_dfas(&c)?;
        let start = vec![0u32; dfas.len()];
        Ok(verdict(&c, &leaves, &dfas, &start, true) == Some(true))
    }
}
