//! `gcd check`: whether a grammar or schema is LL(1), generalized or
//! unusable, as text for people or one JSON object for tools; or, with
//! `--print`, the grammar itself as gcd's Lark text.

use gcd_schema::GrammarFormat;
use std::path::PathBuf;
use std::process::ExitCode;

use gcd_core::compiled::{CompiledGrammar, Lexing};
use gcd_core::grammar::Grammar;

use crate::args::{load_schema, GlobalArgs, Result};

#[derive(clap::Args)]
pub struct Args {
    /// A Lark-subset grammar file, a GBNF file (`.gbnf` or `--format gbnf`), a JSON Schema (`.json`), or a
    /// built-in name (`json`).
    grammar: String,
    /// Refuse anything that is not LL(1) after the transforms (conflicts
    /// and unused rules are errors).
    #[arg(long)]
    ll1: bool,
    /// Instead, read each file against the grammar and print whether it
    /// is a whole sentence, a valid prefix, or where it is rejected
    /// (exit 1 unless every file is a whole sentence).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    accepts: Vec<PathBuf>,
    /// Instead, print the grammar as loaded (before the LL(1) transforms)
    /// in gcd's Lark subset: what a JSON Schema, a GBNF file or a `%json`
    /// rule became. The text reads back as the same grammar (`--json`:
    /// one object with it under `lark`).
    #[arg(long, conflicts_with = "accepts")]
    print: bool,
}

/// What `gcd check` found: printed as the text lines, or with `--json` as
/// one JSON object for tools.
#[derive(serde::Serialize)]
struct CheckReport {
    grammar: String,
    /// `ll1`, `generalized` or `unusable`.
    verdict: &'static str,
    warnings: Vec<String>,
    rewrites: Vec<String>,
    conflicts: Vec<String>,
    errors: Vec<String>,
    lexer_states: Option<usize>,
    shortest_sentence_bytes: Option<u32>,
    #[serde(skip)]
    text: Vec<String>,
}

impl CheckReport {
    fn new(grammar: &str) -> CheckReport {
        CheckReport {
            grammar: grammar.to_string(),
            verdict: "unusable",
            warnings: Vec::new(),
            rewrites: Vec::new(),
            conflicts: Vec::new(),
            errors: Vec::new(),
            lexer_states: None,
            shortest_sentence_bytes: None,
            text: Vec::new(),
        }
    }

    fn print(&self, json: bool) -> ExitCode {
        if json {
            println!(
                "{}",
                serde_json::to_string_pretty(self).expect("a report serializes")
            );
        } else {
            for line in &self.text {
                println!("{line}");
            }
        }
        if self.verdict == "unusable" {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        }
    }
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<ExitCode> {
    if !args.accepts.is_empty() {
        let grammar = global.load_grammar(&args.grammar)?;
        return super::accepts::accepts(grammar, &args.accepts, global.json);
    }
    if args.print {
        let lark = source_grammar(&args.grammar, global)?.to_string();
        if global.json {
            let v = serde_json::json!({ "grammar": args.grammar, "lark": lark });
            println!("{v:#}");
        } else {
            print!("{lark}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    Ok(check_report(&args.grammar, args.ll1, global)?.print(global.json))
}

/// The grammar `spec` names, as loaded: the built-in `json`, a JSON
/// Schema's (default options, as `check` compiles it) or a grammar file's.
fn source_grammar(spec: &str, global: &GlobalArgs) -> Result<Grammar> {
    if spec == "json" {
        return Ok(gcd_core::lark::builtin::json());
    }
    let text = std::fs::read_to_string(spec).map_err(|e| format!("{spec}: {e}"))?;
    if spec.ends_with(".json") && global.format != Some(GrammarFormat::StructuralTag) {
        let schema: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("{spec}: not JSON: {e}"))?;
        return gcd_schema::to_grammar(&schema, &gcd_schema::Options::default())
            .map_err(|e| format!("{spec}: {e}"));
    }
    global
        .read_grammar(spec, &text)
        .map_err(|e| format!("{spec}:\n{e}"))
}

fn check_report(spec: &str, ll1_only: bool, global: &GlobalArgs) -> Result<CheckReport> {
    let lexing = global.lexing_of_files();
    let mut r = CheckReport::new(spec);
    if spec.ends_with(".json") && global.format != Some(GrammarFormat::StructuralTag) {
        match load_schema(spec) {
            Ok(c) => {
                r.warnings = c.warnings().iter().map(ToString::to_string).collect();
                r.text.extend(r.warnings.iter().cloned());
                r.verdict = if c.is_ll1() { "ll1" } else { "generalized" };
                r.lexer_states = Some(c.lexer().num_states());
                r.text.push(format!(
                    "{spec}: JSON Schema ok; lexer: {} states, {} byte classes",
                    c.lexer().num_states(),
                    c.lexer().classes.len()
                ));
            }
            Err(e) => {
                r.errors.push(e.to_string());
                r.text.push(format!("not usable: {e}"));
            }
        }
        return Ok(r);
    }
    let text = match gcd_core::lark::builtin::by_name(spec) {
        Some(_) if spec == "json" => gcd_core::lark::builtin::JSON_LARK.to_string(),
        _ => std::fs::read_to_string(spec).map_err(|e| format!("{spec}: {e}"))?,
    };
    let g = match global.read_grammar(spec, &text) {
        Ok(g) => g,
        Err(e) => {
            r.errors = e.diagnostics().iter().map(ToString::to_string).collect();
            r.text.push(format!("{spec}: cannot be loaded\n{e}"));
            return Ok(r);
        }
    };
    r.text.push(format!(
        "{spec}: {} terminals, {} rules, {} productions",
        g.terminals.len(),
        g.nonterminals.len(),
        g.productions.len()
    ));
    let config = gcd_core::compiled::Config::default()
        .ll1_only(ll1_only)
        .lexing(lexing);
    match CompiledGrammar::with_config(&g, &config) {
        Ok(c) => {
            r.warnings = c.warnings().iter().map(ToString::to_string).collect();
            r.text.extend(r.warnings.iter().cloned());
            for rewrite in &c.report().rewrites {
                let line = match rewrite.span {
                    Some(s) => format!("rewrite {s}: {rewrite}"),
                    None => format!("rewrite: {rewrite}"),
                };
                r.rewrites.push(rewrite.to_string());
                r.text.push(line);
            }
            let mut verdict = if c.is_ll1() {
                r.verdict = "ll1";
                "LL(1): ok".to_string()
            } else {
                r.verdict = "generalized";
                format!(
                    "generalized: ok, {} LL(1) conflict(s) resolved by forking",
                    c.conflicts().len()
                )
            };
            if lexing == Lexing::Dynamic {
                verdict.push_str(", lexed dynamically");
            }
            r.text.push(format!(
                "{verdict} ({} productions after transforms, {} rewrites); lexer: {} states, {} contexts, {} byte classes",
                c.grammar().productions.len(),
                c.report().rewrites.len(),
                c.lexer().num_states(),
                c.candidate_sets().len(),
                c.lexer().classes.len()
            ));
            r.conflicts = c.conflicts().iter().map(ToString::to_string).collect();
            r.text.extend(r.conflicts.iter().cloned());
            let shortest = c.completion().min_sentence_bytes(c.grammar());
            r.lexer_states = Some(c.lexer().num_states());
            r.shortest_sentence_bytes = Some(shortest);
            r.text
                .push(format!("shortest sentence: at least {shortest} bytes"));
        }
        Err(e) => {
            r.errors = e.diagnostics().iter().map(ToString::to_string).collect();
            r.text.push(format!(
                "not usable: {} problem(s)\n{e}",
                e.diagnostics().len()
            ));
        }
    }
    Ok(r)
}
