//! Where whitespace may go between JSON tokens: one policy type for both
//! typed front ends (the derive and gcd-schema), so that a policy means the
//! same separators and ignored whitespace whichever front end builds the
//! grammar.

use std::fmt;

use crate::grammar::TerminalPattern;
use crate::UnknownOptionName;

/// Where whitespace may go. The default is [`Whitespace::Json`]; the front
/// ends choose their own defaults explicitly (`Constrained::WHITESPACE` is
/// [`Compact`](Whitespace::Compact), gcd-schema's `Options::default()` is
/// `Capped(20)`, its `DEFAULT_WHITESPACE`).
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
    /// RFC 8259 whitespace where pretty-printers put it, and bounded: after
    /// `{`, `[`, `,` and `:` and before `}` and `]`, at most this many bytes
    /// in each place (none before `,` or `:`, or around the whole value).
    /// Covers compact output, Python's `json.dumps` with or without
    /// `indent`, and `serde_json::to_string_pretty` to a depth of about
    /// half the cap; a model can no longer spend its budget on blank lines.
    /// It narrows the language on purpose: `{"a" : 1}` is refused.
    Capped(u8),
    /// Any RFC 8259 whitespace between the value's own tokens, as
    /// [`Json`](Whitespace::Json) allows, but none around the whole value:
    /// it is spelled inside the brackets and separators instead of ignored
    /// between lexemes. A value embedded in a larger grammar (`%json` in a
    /// Lark grammar) takes [`Json`](Whitespace::Json) this way, since
    /// ignoring whitespace would apply to the whole grammar.
    Within,
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

    /// An opening bracket (`{` or `[`) and the whitespace this policy lets
    /// follow it.
    pub fn open(self, c: char) -> TerminalPattern {
        match self {
            Whitespace::Capped(n) => TerminalPattern::Regex(format!("\\{c}{}", Self::run(n))),
            Whitespace::Within => TerminalPattern::Regex(format!("\\{c}{ANY}")),
            _ => literal(c.to_string()),
        }
    }

    /// A closing bracket (`}` or `]`) and the whitespace this policy lets
    /// precede it.
    pub fn close(self, c: char) -> TerminalPattern {
        match self {
            Whitespace::Capped(n) => TerminalPattern::Regex(format!("{}\\{c}", Self::run(n))),
            Whitespace::Within => TerminalPattern::Regex(format!("{ANY}\\{c}")),
            _ => literal(c.to_string()),
        }
    }

    /// Whether brackets carry whitespace ([`open`](Self::open) and
    /// [`close`](Self::close) are not plain literals).
    pub fn in_brackets(self) -> bool {
        matches!(self, Whitespace::Capped(_) | Whitespace::Within)
    }

    /// The whitespace ignored between any two tokens, if any.
    pub fn ignored(self) -> Option<TerminalPattern> {
        match self {
            Whitespace::Json => Some(TerminalPattern::Regex(r"[ \t\n\r]+".into())),
            Whitespace::Compact
            | Whitespace::Spaced
            | Whitespace::SingleSpace
            | Whitespace::Capped(_)
            | Whitespace::Within => None,
        }
    }

    /// Up to `n` whitespace bytes.
    fn run(n: u8) -> String {
        format!("[ \\t\\n\\r]{{0,{n}}}")
    }

    fn separator(self, c: char) -> TerminalPattern {
        match self {
            Whitespace::Compact | Whitespace::Json => literal(c.to_string()),
            Whitespace::Spaced => TerminalPattern::Regex(format!("{c} ?")),
            Whitespace::SingleSpace => literal(format!("{c} ")),
            Whitespace::Capped(n) => TerminalPattern::Regex(format!("{c}{}", Self::run(n))),
            Whitespace::Within => TerminalPattern::Regex(format!("{ANY}{c}{ANY}")),
        }
    }
}

/// Any run of RFC 8259 whitespace, as a regex.
const ANY: &str = "[ \\t\\n\\r]*";

fn literal(text: String) -> TerminalPattern {
    TerminalPattern::Literal {
        text,
        case_insensitive: false,
    }
}

/// The policies by name, as Python's `whitespace=` and the derive's
/// `#[constrained(whitespace = "...")]` spell them. [`Whitespace::Within`]
/// has no name: embedding a value chooses it, a caller does not.
impl Whitespace {
    /// The cap the name `capped` stands for, gcd-schema's default
    /// (`DEFAULT_WHITESPACE`): an indent of 2 to depth 9, of 4 to depth 4.
    pub const DEFAULT_CAP: u8 = 20;

    /// The names [`from_name`](Self::from_name) reads; `FromStr` reads
    /// them and `capped:N`.
    pub const NAMES: [&'static str; 5] = ["compact", "spaced", "single_space", "json", "capped"];

    /// What `FromStr` reads, as its error lists them.
    const SPELLINGS: [&'static str; 6] = [
        "compact",
        "spaced",
        "single_space",
        "json",
        "capped",
        "capped:N",
    ];

    /// The policy a plain name stands for (`capped` is
    /// `Capped(DEFAULT_CAP)`). A derive attribute names a policy this way;
    /// a cap of its own takes `FromStr`'s `capped:N`.
    pub fn from_name(name: &str) -> Result<Whitespace, UnknownOptionName> {
        Ok(match name {
            "compact" => Whitespace::Compact,
            "spaced" => Whitespace::Spaced,
            "single_space" => Whitespace::SingleSpace,
            "json" => Whitespace::Json,
            "capped" => Whitespace::Capped(Whitespace::DEFAULT_CAP),
            _ => {
                return Err(UnknownOptionName::new(
                    "whitespace policy",
                    name,
                    &Whitespace::NAMES,
                ))
            }
        })
    }
}

impl std::str::FromStr for Whitespace {
    type Err = UnknownOptionName;

    /// A name of [`Whitespace::NAMES`], or `capped:N` for a cap of N bytes
    /// (0 to 255).
    fn from_str(s: &str) -> Result<Whitespace, UnknownOptionName> {
        let unknown = || {
            UnknownOptionName::new("whitespace policy", s, &Whitespace::SPELLINGS)
                .with_note("N from 0 to 255")
        };
        match s.strip_prefix("capped:") {
            Some(n) => n.parse().map(Whitespace::Capped).map_err(|_| unknown()),
            None => Whitespace::from_name(s).map_err(|_| unknown()),
        }
    }
}

/// The name `FromStr` reads back; `Capped(n)` is written `capped:n`.
/// `Within` is written `within`, which nothing reads (see above).
impl fmt::Display for Whitespace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Whitespace::Compact => f.write_str("compact"),
            Whitespace::Spaced => f.write_str("spaced"),
            Whitespace::SingleSpace => f.write_str("single_space"),
            Whitespace::Json => f.write_str("json"),
            Whitespace::Capped(n) => write!(f, "capped:{n}"),
            Whitespace::Within => f.write_str("within"),
        }
    }
}
