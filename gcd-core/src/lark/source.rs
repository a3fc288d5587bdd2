//! Byte offsets to `line:column` positions. The lexer, the parser and the
//! terminal checks all report against the same text, so the line index is
//! built once and shared.

use crate::error::{Pos, Span};

pub(super) struct Source<'a> {
    pub(super) text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Source { text, line_starts }
    }

    pub(super) fn pos(&self, offset: usize) -> Pos {
        let mut off = offset.min(self.text.len());
        while !self.text.is_char_boundary(off) {
            off -= 1;
        }
        let line = match self.line_starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let col = self.text[self.line_starts[line]..off].chars().count() + 1;
        Pos {
            line: line as u32 + 1,
            col: col as u32,
        }
    }

    pub(super) fn span(&self, start: usize, end: usize) -> Span {
        let end = end.max(start);
        Span {
            start: self.pos(start),
            end: self.pos(end),
            byte_start: start,
            byte_end: end,
        }
    }
}
