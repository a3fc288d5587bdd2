//! Reading a grammar's text, the one way the command line and the Python
//! package both read it: Lark with `%json { ... }` schemas compiled by this
//! crate and `%import .module` read from a directory, or llama.cpp's GBNF,
//! from the start rule given, or XGrammar's structural tags (JSON). It
//! lives here, not in gcd-core, because `%json` and structural tags need
//! this crate's schema compiler.

use std::path::{Path, PathBuf};

use gcd_core::compiled::{CompiledGrammar, Config};
use gcd_core::error::DiagnosticKind;
use gcd_core::grammar::Grammar;
use gcd_core::{GrammarError, UnknownOptionName};

use crate::Options;

/// The language a grammar's text is written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GrammarFormat {
    /// gcd's Lark subset, the default.
    #[default]
    Lark,
    /// llama.cpp's GBNF.
    Gbnf,
    /// XGrammar's structural tag, a JSON document (see
    /// [`structural_tag`](crate::structural_tag)); compiled with dynamic
    /// lexing whatever the configuration says, as its language needs.
    StructuralTag,
}

impl GrammarFormat {
    /// The names `FromStr` reads and `Display` writes, as `gcd --format`
    /// lists them.
    pub const NAMES: [&'static str; 3] = ["lark", "gbnf", "structural-tag"];

    /// The format a file's name implies: GBNF for a `.gbnf` file, else Lark.
    pub fn of_path(path: &Path) -> GrammarFormat {
        // The name's ending, not `Path::extension`: a file named `.gbnf` is
        // GBNF too.
        if path.as_os_str().as_encoded_bytes().ends_with(b".gbnf") {
            GrammarFormat::Gbnf
        } else {
            GrammarFormat::Lark
        }
    }
}

impl std::str::FromStr for GrammarFormat {
    type Err = UnknownOptionName;

    fn from_str(name: &str) -> Result<GrammarFormat, UnknownOptionName> {
        match name {
            "lark" => Ok(GrammarFormat::Lark),
            "gbnf" => Ok(GrammarFormat::Gbnf),
            "structural-tag" => Ok(GrammarFormat::StructuralTag),
            _ => Err(UnknownOptionName::new(
                "grammar format",
                name,
                &GrammarFormat::NAMES,
            )),
        }
    }
}

impl std::fmt::Display for GrammarFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GrammarFormat::Lark => "lark",
            GrammarFormat::Gbnf => "gbnf",
            GrammarFormat::StructuralTag => "structural-tag",
        })
    }
}

/// How to read a grammar's text into gcd-core's IR: its format, where a
/// Lark grammar's relative imports are, the start rule, and the options
/// `%json` schemas compile with.
///
/// ```
/// # use gcd_schema::{GrammarFormat, GrammarReader};
/// let reader = GrammarReader::new(GrammarFormat::Lark).start("greeting");
/// let grammar = reader.read(r#"greeting: "hi" | "hello""#)?;
/// # let _ = grammar;
/// # Ok::<(), gcd_core::GrammarError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct GrammarReader {
    format: GrammarFormat,
    import_dir: Option<PathBuf>,
    start: Option<String>,
    options: Options,
}

impl GrammarReader {
    /// Text in `format`, without file imports, from the format's own start
    /// rule (Lark's `start`, GBNF's `root`), `%json` under the default
    /// [`Options`].
    pub fn new(format: GrammarFormat) -> GrammarReader {
        GrammarReader {
            format,
            ..GrammarReader::default()
        }
    }

    /// The text of the file at `path`: GBNF if it ends in `.gbnf`, else
    /// Lark, whose `%import .module` reads `module.lark` beside it.
    pub fn for_file(path: &Path) -> GrammarReader {
        let dir = path.parent().unwrap_or(Path::new("."));
        GrammarReader::new(GrammarFormat::of_path(path)).import_dir(dir)
    }

    /// Reads the text as `format` whatever the file is named.
    pub fn format(mut self, format: GrammarFormat) -> GrammarReader {
        self.format = format;
        self
    }

    /// Where a Lark grammar's `%import .module.NAME` finds `module.lark`;
    /// without it such imports are refused.
    pub fn import_dir(mut self, dir: impl Into<PathBuf>) -> GrammarReader {
        self.import_dir = Some(dir.into());
        self
    }

    /// The start rule, as Lark's `start=` (a grammar without the format's
    /// own start rule is refused without it).
    pub fn start(mut self, rule: impl Into<String>) -> GrammarReader {
        self.start = Some(rule.into());
        self
    }

    /// The options `%json { ... }` schemas compile with, and whose limits
    /// reading takes.
    pub fn options(mut self, options: Options) -> GrammarReader {
        self.options = options;
        self
    }

    /// The grammar IR of `text`.
    pub fn read(&self, text: &str) -> Result<Grammar, GrammarError> {
        let mut builder = match self.format {
            GrammarFormat::StructuralTag => {
                if self.start.is_some() {
                    return Err(GrammarError::single(
                        DiagnosticKind::Unsupported,
                        None,
                        "a structural tag has no rules to start from; drop the start rule",
                    ));
                }
                return read_structural_tag(text, &self.options);
            }
            GrammarFormat::Gbnf => gcd_core::gbnf::parse_with(text, &self.options.limits)?,
            GrammarFormat::Lark => {
                let limits = &self.options.limits;
                match &self.import_dir {
                    Some(dir) => {
                        let files = gcd_core::lark::FileImports {
                            dir: dir.clone(),
                            inner: &self.options,
                        };
                        gcd_core::lark::parse_with_embeds(text, limits, &files)?
                    }
                    None => gcd_core::lark::parse_with_embeds(text, limits, &self.options)?,
                }
            }
        };
        if let Some(start) = &self.start {
            builder.start(start);
        }
        builder.build()
    }

    /// [`read`](Self::read), then compiled under `config`.
    pub fn compile(&self, text: &str, config: &Config) -> Result<CompiledGrammar, GrammarError> {
        let grammar = self.read(text)?;
        if self.format == GrammarFormat::StructuralTag {
            let config = config.clone().lexing(gcd_core::Lexing::Dynamic);
            return CompiledGrammar::with_config(&grammar, &config);
        }
        CompiledGrammar::with_config(&grammar, config)
    }
}

/// A structural tag's JSON text, read; its errors as one diagnostic.
fn read_structural_tag(text: &str, options: &Options) -> Result<Grammar, GrammarError> {
    let tag: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        GrammarError::single(
            DiagnosticKind::Syntax,
            None,
            format!("a structural tag must be JSON: {e}"),
        )
    })?;
    crate::structural_tag_to_grammar(&tag, options).map_err(|e| {
        let kind = match e.kind() {
            crate::SchemaErrorKind::Unsupported => DiagnosticKind::Unsupported,
            crate::SchemaErrorKind::TooLarge => DiagnosticKind::TooLarge,
            _ => DiagnosticKind::Syntax,
        };
        GrammarError::single(kind, None, e.to_string())
    })
}
