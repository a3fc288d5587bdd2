//! The flags several commands share, and what they load: the global
//! options every grammar this process reads takes (`--lexing`, `--start`,
//! `--format`, `--json`), and `--grammar` / `--tokenizer`.

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::{CompiledGrammar, Config, Lexing};
use gcd_core::grammar::Grammar;
use gcd_core::vocab::Vocabulary;
use gcd_core::{GrammarError, UnknownOptionName};
use gcd_schema::{GrammarFormat, GrammarReader};
use indicatif::{ProgressBar, ProgressStyle};

/// A command's outcome: its exit code, or a message that `main` prints
/// (as `{"error": ...}` under `--json`) with exit code 2.
pub type Result<T> = std::result::Result<T, String>;

/// A flag taking one of an option type's names: `--help` and clap's
/// errors list them, and the type's own `FromStr` reads them.
pub fn named<T>(names: &'static [&'static str]) -> impl TypedValueParser<Value = T>
where
    T: FromStr<Err = UnknownOptionName> + Clone + Send + Sync + 'static,
{
    PossibleValuesParser::new(names.iter().copied()).try_map(|name| name.parse::<T>())
}

/// The options that go before or after any subcommand.
#[derive(clap::Args)]
pub struct GlobalArgs {
    /// How a Lark grammar's text is cut into lexemes: `maximal-munch` (a
    /// lexeme grows while it can; grammars where that swallows the next
    /// terminal are refused) or `dynamic` (a lexeme may end wherever a
    /// terminal matches, as in Lark's Earley parser; slower masks, no budget).
    #[arg(
        long,
        global = true,
        value_parser = named::<Lexing>(&Lexing::NAMES),
        default_value_t = Lexing::MaximalMunch
    )]
    pub lexing: Lexing,
    /// Print one JSON object for tools instead of text (`sample` prints one
    /// JSON line per output either way). Errors come as `{"error": ...}` on
    /// stdout, with exit code 2.
    #[arg(long, global = true)]
    pub json: bool,
    /// The start rule of a Lark grammar that has no rule named `start`
    /// (as Lark's `start=` option; such a grammar is refused without it).
    #[arg(long, global = true, value_name = "RULE")]
    pub start: Option<String>,
    /// The language of grammar files: Lark (the default), GBNF
    /// (llama.cpp's; also picked by a `.gbnf` extension) or
    /// `structural-tag` (XGrammar's JSON, compiled with dynamic lexing).
    #[arg(long, global = true, value_parser = named::<GrammarFormat>(&GrammarFormat::NAMES))]
    pub format: Option<GrammarFormat>,
}

/// `--grammar` and `--tokenizer`: what a command binds.
#[derive(clap::Args)]
pub struct GrammarArgs {
    /// A grammar file, a JSON Schema (`.json`), or the built-in `json`.
    #[arg(long, default_value = "json")]
    pub grammar: String,
    /// tokenizer.json, a .tiktoken file, or `o200k` / `cl100k` (embedded).
    #[arg(long, default_value = "o200k")]
    pub tokenizer: String,
}

impl GlobalArgs {
    /// The lexing grammar files compile with: `--lexing`, except for
    /// structural tags, whose language needs dynamic lexing.
    pub fn lexing_of_files(&self) -> Lexing {
        match self.format {
            Some(GrammarFormat::StructuralTag) => Lexing::Dynamic,
            _ => self.lexing,
        }
    }

    /// A built-in grammar by name (`json`), a JSON Schema file (`.json`,
    /// its warnings on stderr) or a grammar file, compiled.
    pub fn load_grammar(&self, spec: &str) -> Result<Arc<CompiledGrammar>> {
        if let Some(g) = gcd_core::lark::builtin::by_name(spec) {
            return g.map_err(|e| e.to_string());
        }
        if spec.ends_with(".json") && self.format != Some(GrammarFormat::StructuralTag) {
            let c = load_schema(spec)?;
            for w in c.warnings() {
                eprintln!("{spec}: {w}");
            }
            return Ok(Arc::new(c));
        }
        let text = std::fs::read_to_string(spec).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "{spec}: no such file, and not a built-in grammar; pass a Lark grammar file, \
                     a GBNF file (.gbnf), a JSON Schema ending in .json, or `json`"
                )
            } else {
                format!("{spec}: {e}")
            }
        })?;
        let config = Config::default().lexing(self.lexing);
        self.reader(spec)
            .compile(&text, &config)
            .map(Arc::new)
            .map_err(|e| format!("{spec}:\n{e}"))
    }

    /// XGrammar's structural tag in the JSON file `spec`, compiled (with
    /// dynamic lexing, which its language needs).
    pub fn load_structural_tag(&self, spec: &str) -> Result<Arc<CompiledGrammar>> {
        let text = std::fs::read_to_string(spec).map_err(|e| format!("{spec}: {e}"))?;
        GrammarReader::new(GrammarFormat::StructuralTag)
            .compile(&text, &Config::default())
            .map(Arc::new)
            .map_err(|e| format!("{spec}:\n{e}"))
    }

    /// The grammar `text` of the file `spec`, as `--format` and `--start`
    /// say.
    pub fn read_grammar(
        &self,
        spec: &str,
        text: &str,
    ) -> std::result::Result<Grammar, GrammarError> {
        self.reader(spec).read(text)
    }

    fn reader(&self, spec: &str) -> GrammarReader {
        let mut reader = GrammarReader::for_file(Path::new(spec));
        if let Some(format) = self.format {
            reader = reader.format(format);
        }
        if let Some(start) = &self.start {
            reader = reader.start(start);
        }
        reader
    }
}

/// A JSON Schema file, compiled with the default options.
pub fn load_schema(spec: &str) -> Result<CompiledGrammar> {
    let text = std::fs::read_to_string(spec).map_err(|e| format!("{spec}: {e}"))?;
    let schema: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{spec}: not JSON: {e}"))?;
    gcd_schema::compile(&schema, &gcd_schema::Options::default())
        .map_err(|e| format!("{spec}: {e}"))
}

pub fn load_vocab(spec: &str) -> Result<Arc<Vocabulary>> {
    Vocabulary::load(spec)
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

/// Binds with a progress bar on stderr when binding takes a while. Fails
/// when the grammar names a special token the vocabulary lacks.
pub fn bind(grammar: Arc<CompiledGrammar>, vocab: Arc<Vocabulary>) -> Result<Arc<BoundGrammar>> {
    let bar = progress_bar("binding {bar:30} {pos}/{len} lexer states");
    bar.set_length(grammar.lexer().num_states() as u64);
    let bound =
        BoundGrammar::with_progress(grammar, vocab, &mut |done, _| bar.set_position(done as u64));
    bar.finish_and_clear();
    bound.map(Arc::new).map_err(|e| e.to_string())
}

/// A progress bar on stderr (hidden when stderr is not a terminal), for
/// work that can take seconds: binding a large grammar, MaskBench.
pub fn progress_bar(template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}
