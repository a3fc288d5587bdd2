//! Where whitespace may go between JSON tokens: one policy type for both
//! typed front ends (the derive and gcd-schema), so that a policy means the
//! same separators and ignored whitespace whichever front end builds the
//! grammar.

use crate::grammar::TerminalPattern;

/// Where whitespace may go. The default is [`Whitespace::Json`]; the front
/// ends choose their own defaults explicitly (`Constrained::WHITESPACE` is
/// [`Compact`](Whitespace::Compact), gcd-schema's `Options::default()` is
/// [`Json`](Whitespace::Json)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Whitespace {
    /// None at all, as `serde_json::to_string` writes: `{"a":1,"b":[1,2]}`.
    Compact,
    /// Optionally one space after `:` and `,`, as models like to write.
    Spaced,
    /// Exactly one space after `:` and `,`, as Python's `json.dumps`
    /// writes: `{"a": 1, "b": [1, 2]}`.
    SingleSpace,
    /// Any RFC 8259 whitespace between tokens (documents in the wild have
    /// it, and it accepts Python's `", "` / `": "`).
    #[default]
    Json,
}

impl Whitespace {
    /// The separator between members and between array items.
    pub fn comma(self) -> TerminalPattern {
        self.separator(',')
    }

    /// The separator between a key and its value.
    pub fn colon(self) -> TerminalPattern {
        self.separator(':')
    }

    /// The whitespace ignored between any two tokens, if any.
    pub fn ignored(self) -> Option<TerminalPattern> {
        match self {
            Whitespace::Json => Some(TerminalPattern::Regex(r"[ \t\n\r]+".into())),
            Whitespace::Compact | Whitespace::Spaced | Whitespace::SingleSpace => None,
        }
    }

    fn separator(self, c: char) -> TerminalPattern {
        let literal = |text: String| TerminalPattern::Literal {
            text,
            case_insensitive: false,
        };
        match self {
            Whitespace::Compact | Whitespace::Json => literal(c.to_string()),
            Whitespace::Spaced => TerminalPattern::Regex(format!("{c} ?")),
            Whitespace::SingleSpace => literal(format!("{c} ")),
        }
    }
}
