//! The lexeme caps a grammar sets itself (llguidance's `[max_tokens=N]`,
//! [`Hints::lexeme_caps`](crate::grammar::Hints)). Whether a cap can be
//! kept depends on the vocabulary (the fewest tokens that spell a lexeme),
//! so it is checked once, when the grammar is bound: every matcher then
//! starts with the caps, and none can meet a cap it cannot keep.

use std::sync::Arc;

use super::{BoundGrammar, INF};
use crate::compiled::Lexing;
use crate::vocab::VocabError;

impl BoundGrammar {
    /// Per terminal, the most tokens one of its lexemes may hold as the
    /// grammar caps it ([`INF`]: no cap); `None` when the grammar caps no
    /// terminal. An error says why a cap cannot be kept with this
    /// vocabulary.
    pub(crate) fn grammar_caps(&self) -> Result<Option<Arc<[u32]>>, String> {
        let g = &self.grammar.grammar;
        let Some(&(first, _)) = g.hints.lexeme_caps.first() else {
            return Ok(None);
        };
        let name = |t: crate::grammar::TermId| g.terminal(t).name.as_str();
        if self.grammar.lexing() == Lexing::Dynamic {
            return Err(format!(
                "the grammar caps {}, and under dynamic lexing a lexeme's end is not one place",
                name(first)
            ));
        }
        self.budget_available().map_err(|e| e.to_string())?;
        let mut caps = vec![INF; g.terminals.len()];
        for &(t, n) in &g.hints.lexeme_caps {
            let need = self.budget().lexeme_most(t.0);
            if n < need {
                return Err(format!(
                    "the grammar caps {} at {n} tokens (`max_tokens={n}`), and with this \
                     vocabulary a lexeme of it may need {need}",
                    name(t)
                ));
            }
            caps[t.index()] = n.min(INF - 1);
        }
        Ok(Some(caps.into()))
    }

    /// `self`, once its grammar's caps are shown keepable (see
    /// [`grammar_caps`](Self::grammar_caps)).
    pub(crate) fn with_checked_caps(self) -> Result<BoundGrammar, VocabError> {
        match self.grammar_caps() {
            Ok(_) => Ok(self),
            Err(why) => Err(VocabError::lexeme_cap(self.vocab.name(), why)),
        }
    }
}
