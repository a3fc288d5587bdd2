//! A vocabulary as a grammar that names special tokens reads it.
//!
//! A grammar's `k`-th special token is lexed as the bytes
//! [`special_bytes(k)`](crate::grammar::special_bytes), which start with
//! `0xFF`. Binding derives a vocabulary in which each named token id has
//! exactly those bytes and is ordinary text, so every later stage (the trie,
//! masks, budgets, the reference recognizer) handles it as one more token.
//! Two things keep that exact: no other token may spell those bytes (tokens
//! holding `0xFF` become [`Special`](TokenKind::Special); no terminal regex
//! matches `0xFF`, so no grammar could use them anyway), and a named token
//! is no longer an EOS id (it is grammar text now, allowed only where the
//! grammar puts it).

use std::sync::Arc;

use super::{Result, TokenKind, VocabError, VocabErrorKind, Vocabulary};
use crate::grammar::{special_bytes, SpecialToken, SPECIAL_LEAD};

impl Vocabulary {
    /// The id of `token` in this vocabulary: by id, or by its text among the
    /// special tokens (`<NAME>` also finds one written `[NAME]`). An
    /// ordinary token is refused: its bytes are text, which the grammar
    /// spells with a literal.
    pub fn special_token_id(&self, token: &SpecialToken) -> Result<u32> {
        let err =
            |message: String| VocabError::new(VocabErrorKind::SpecialToken, &self.name, message);
        match token {
            SpecialToken::Id(id) => match self.kind(*id) {
                Ok(TokenKind::Special) if self.token_bytes(*id).is_ok_and(|b| !b.is_empty()) => Ok(*id),
                Ok(TokenKind::Special) => Err(err(format!("{token}: no token has id {id}"))),
                Ok(TokenKind::Normal) => Err(err(format!(
                    "{token}: token {id} is ordinary text ({:?}), not a special token; write its text as a \"literal\"",
                    String::from_utf8_lossy(self.token_bytes(*id).unwrap_or_default())
                ))),
                Err(_) => Err(err(format!(
                    "{token}: id {id} is out of range (the vocabulary has {} ids)",
                    self.len()
                ))),
            },
            SpecialToken::Named(name) => {
                let bracketed = name
                    .strip_prefix('<')
                    .and_then(|n| n.strip_suffix('>'))
                    .map(|n| format!("[{n}]"));
                let mut normal = None;
                for (i, kind) in self.kinds.iter().enumerate() {
                    let bytes = self.token_bytes(i as u32)?;
                    let same = bytes == name.as_bytes()
                        || bracketed.as_ref().is_some_and(|b| bytes == b.as_bytes());
                    match kind {
                        TokenKind::Special if same => return Ok(i as u32),
                        TokenKind::Normal if same => normal = Some(i),
                        _ => {}
                    }
                }
                Err(err(match normal {
                    Some(i) => format!(
                        "{name} is ordinary text in this vocabulary (token {i}), not a special token; write it as the literal \"{name}\""
                    ),
                    None => format!("the vocabulary has no special token {name}"),
                }))
            }
        }
    }

    /// The vocabulary as the tokenizer has it: `self`, unless `self` was
    /// derived for a grammar that names special tokens.
    pub fn base(self: &Arc<Self>) -> Arc<Vocabulary> {
        self.base.clone().unwrap_or_else(|| self.clone())
    }

    /// `self` with `ids[k]` spelled as the `k`-th special token of a
    /// grammar (see the module doc); `self` must be a base vocabulary.
    pub(crate) fn with_special_symbols(self: &Arc<Self>, ids: &[u32]) -> Result<Vocabulary> {
        let mut symbol_of = vec![u32::MAX; self.len()];
        for (k, &id) in ids.iter().enumerate() {
            self.check(id)?;
            if symbol_of[id as usize] != u32::MAX {
                return Err(VocabError::new(
                    VocabErrorKind::SpecialToken,
                    &self.name,
                    format!(
                        "the grammar names token {id} twice (by name and by id): name it one way"
                    ),
                ));
            }
            symbol_of[id as usize] = k as u32;
        }
        let mut tokens = Vec::with_capacity(self.len());
        let mut kinds = Vec::with_capacity(self.len());
        for (i, &kind) in self.kinds.iter().enumerate() {
            let bytes = self.token_bytes(i as u32)?;
            let (bytes, kind) = match symbol_of[i] {
                u32::MAX if bytes.contains(&SPECIAL_LEAD) => (bytes.to_vec(), TokenKind::Special),
                u32::MAX => (bytes.to_vec(), kind),
                k => (special_bytes(k as u16).to_vec(), TokenKind::Normal),
            };
            tokens.push(bytes);
            kinds.push(kind);
        }
        let mut out = Vocabulary::assemble(
            self.name.clone(),
            tokens,
            kinds,
            None,
            self.no_encoder_reason,
        );
        out.encoder = self.encoder.clone();
        out.base = Some(self.clone());
        out.eos = self
            .eos
            .iter()
            .copied()
            .filter(|&e| symbol_of[e as usize] == u32::MAX)
            .collect();
        out.symbols = ids
            .iter()
            .map(|&id| {
                let name = String::from_utf8_lossy(self.token_bytes(id).unwrap_or_default());
                (id, name.into_owned())
            })
            .collect();
        Ok(out)
    }

    /// The id and name of each special token this vocabulary spells as a
    /// grammar symbol (none unless bound to a grammar that names some).
    pub fn special_symbols(&self) -> impl Iterator<Item = (u32, &str)> + '_ {
        self.symbols.iter().map(|(id, name)| (*id, name.as_str()))
    }

    /// `encode` with each symbol's name in `text` as its token: the text
    /// between names is encoded as usual.
    pub(super) fn encode_with_symbols(&self, text: &str) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        let mut rest = text;
        loop {
            // The leftmost name, the longest of those starting there.
            let next = self
                .symbols
                .iter()
                .filter_map(|(id, name)| {
                    rest.find(name.as_str())
                        .map(|at| (at, std::cmp::Reverse(name.len()), *id))
                })
                .min();
            let Some((at, std::cmp::Reverse(len), id)) = next else {
                out.extend(self.encode_text(rest)?);
                return Ok(out);
            };
            out.extend(self.encode_text(&rest[..at])?);
            out.push(id);
            rest = &rest[at + len..];
        }
    }

    /// Output bytes as text: UTF-8 decoded (invalid sequences replaced), and
    /// each special token a grammar named written as its name
    /// (`<|im_end|>`).
    pub fn render(&self, bytes: &[u8]) -> String {
        let mut out = String::new();
        let mut rest = bytes;
        while let Some(at) = rest.iter().position(|&b| b == SPECIAL_LEAD) {
            out.push_str(&String::from_utf8_lossy(&rest[..at]));
            let name = rest
                .get(at + 1..at + 3)
                .map(|k| u16::from_be_bytes([k[0], k[1]]) as usize)
                .and_then(|k| self.symbols.get(k))
                .map(|(_, name)| name);
            match name {
                Some(name) => {
                    out.push_str(name);
                    rest = &rest[at + 3..];
                }
                None => {
                    out.push(char::REPLACEMENT_CHARACTER);
                    rest = &rest[at + 1..];
                }
            }
        }
        out.push_str(&String::from_utf8_lossy(rest));
        out
    }
}
