//! Byte offsets to `line:column` positions. The lexer, the parser and the
//! terminal checks all report against the same text, so the line index is
//! built once and shared.

use crate::error::{Pos, Span};

pub(crate) struct Source<'a> {
    pub(crate) text: &'a str,
    line_starts: Vec<usize>,
    /// Lines that are all ASCII, whose columns are byte offsets: counting
    /// characters from the line start per position is quadratic on one
    /// long line (a rule of 20,000 alternatives).
    ascii_lines: Vec<bool>,
}

impl<'a> Source<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        let ascii_lines = (line_starts.iter().enumerate())
            .map(|(i, &start)| {
                let end = line_starts.get(i + 1).copied().unwrap_or(text.len());
                text.as_bytes()[start..end].is_ascii()
            })
            .collect();
        Source {
            text,
            line_starts,
            ascii_lines,
        }
    }

    pub(crate) fn pos(&self, offset: usize) -> Pos {
        let mut off = offset.min(self.text.len());
        while !self.text.is_char_boundary(off) {
            off -= 1;
        }
        let line = match self.line_starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = if self.ascii_lines[line] {
            off - start + 1
        } else {
            self.text[start..off].chars().count() + 1
        };
        Pos {
            line: line as u32 + 1,
            col: col as u32,
        }
    }

    pub(crate) fn span(&self, start: usize, end: usize) -> Span {
        let end = end.max(start);
        Span {
            start: self.pos(start),
            end: self.pos(end),
            byte_start: start,
            byte_end: end,
        }
    }
}
