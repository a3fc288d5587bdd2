//! Forced output: the bytes (and tokens) the grammar leaves no choice about,
//! for jump-forward decoding.

use super::{Config, Matcher};

impl Matcher {
    /// The bytes the grammar forces next: while exactly one byte can follow
    /// and the output is not complete, that byte.
    pub fn forced_bytes(&self) -> Vec<u8> {
        let mut m = self.clone();
        let mut forced = Vec::new();
        while !m.finished && !m.is_complete() {
            let mut only = None;
            for b in 0..=255u8 {
                if let Ok(runs) = m.run_bytes(&[b]) {
                    if only.is_some() {
                        return forced;
                    }
                    only = Some((b, runs));
                }
            }
            let Some((b, runs)) = only else { return forced };
            m.configs = (runs.into_iter())
                .map(|(stack, lexer, _, held)| Config {
                    stack,
                    lexer,
                    costs: Vec::new(),
                    held,
                })
                .collect();
            m.fresh = false;
            forced.push(b);
        }
        forced
    }

    /// Tokens spelling a prefix of [`forced_bytes`](Self::forced_bytes),
    /// longest token first at each step: what an engine can append without
    /// a forward pass (jump-forward decoding).
    ///
    /// The caveat: this is one tokenization of the forced bytes, not
    /// necessarily the one the tokenizer would give the whole output (the
    /// last forced token might have merged with the model's next bytes, as
    /// `{"` and `{"a` do). Every token is allowed, so the output stays
    /// valid; a model may just find the split less likely. Engines that
    /// mind re-tokenize or stop one token short.
    pub fn forced_tokens(&self) -> Vec<u32> {
        let forced = self.forced_bytes();
        let trie = &self.bound.trie;
        let mut out = Vec::new();
        let mut pos = 0;
        while pos < forced.len() {
            // Follow the trie along the forced bytes, remembering the deepest token.
            let mut best: Option<(usize, u32)> = None;
            let mut node = 0usize;
            for (k, &byte) in forced[pos..].iter().enumerate() {
                let mut child = node + 1;
                let end = trie.subtree_end[node] as usize;
                let mut found = None;
                while child < end {
                    if trie.byte[child] == byte {
                        found = Some(child);
                        break;
                    }
                    child = trie.subtree_end[child] as usize;
                }
                let Some(c) = found else { break };
                node = c;
                if let Some(&t) = trie.tokens_at(node).first() {
                    best = Some((k + 1, t));
                }
            }
            let Some((len, t)) = best else { break };
            out.push(t);
            pos += len;
        }
        out
    }
}
