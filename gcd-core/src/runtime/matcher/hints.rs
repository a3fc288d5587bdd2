//! What the grammar says beside its language, read at the matcher's
//! position: the temperature of the lexeme being generated and the
//! captures of the output (see [`Hints`](crate::grammar::Hints)).

use super::Matcher;
use crate::runtime::tree::{self, Capture, ParseError};

impl Matcher {
    /// The sampling temperature the grammar gives the lexeme the next
    /// token begins in: the highest `[temperature=T]` among the terminals
    /// the next byte can be part of (the pending lexeme it extends, or the
    /// one it starts when it ends that), over every configuration and
    /// every byte the grammar allows next; `None` when none has one. A
    /// token that runs on into later lexemes is read by its first byte.
    /// It is a hint for the caller's sampler and changes no mask.
    pub fn temperature(&self) -> Option<f32> {
        let g = &self.bound.grammar;
        if g.grammar.hints.temperatures.is_empty() || self.finished {
            return None;
        }
        (0..=255u8)
            .filter_map(|b| self.run_bytes(&[b]).ok())
            .flatten()
            .flat_map(|(_, lexer, _, _)| g.lexer.alive.get(lexer as usize).into_iter().flatten())
            .filter_map(|&t| g.grammar.temperature(crate::grammar::TermId(t)))
            .reduce(f32::max)
    }

    /// The captures (`[capture]`, `[capture="name"]`) of the output so
    /// far, which must be a whole sentence (see [`is_complete`](Self::is_complete)):
    /// by name and byte range into [`output`](Self::output), in the order
    /// of [`tree::captures`]. An error when the output is not complete.
    pub fn captures(&self) -> Result<Vec<Capture>, ParseError> {
        tree::captures(&self.bound.grammar, &self.output)
    }
}
