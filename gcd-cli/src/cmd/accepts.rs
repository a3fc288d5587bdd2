//! `gcd check GRAMMAR --accepts FILE...`: each file's verdict under the
//! grammar, and where a refused one stops, without a tokenizer.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::Vocabulary;

use crate::args::Result;

/// Bytes fed at once; a refused chunk is fed again byte by byte to find
/// where the file stops.
const CHUNK: usize = 4096;

/// One file's verdict.
#[derive(serde::Serialize)]
struct Verdict {
    file: String,
    /// `accepted` (a whole sentence), `prefix` (valid, but it needs more)
    /// or `rejected`.
    verdict: &'static str,
    /// Bytes read before the first one no sentence can continue with.
    valid_bytes: usize,
    /// Where that byte is, when rejected.
    at: Option<Position>,
}

/// A byte's line and column, both from 1 (columns count bytes).
#[derive(serde::Serialize)]
struct Position {
    line: usize,
    column: usize,
}

/// Checks every file; exits 0 only if every one is a whole sentence.
pub fn accepts(grammar: Arc<CompiledGrammar>, files: &[PathBuf], json: bool) -> Result<ExitCode> {
    // Every byte its own token: the matcher then reads any text.
    let bytes: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    // The language is the question: caps count tokens, and text fed as
    // bytes is none.
    let grammar = match grammar.grammar().hints.lexeme_caps.is_empty() {
        true => grammar,
        false => Arc::new(grammar.without_lexeme_caps()),
    };
    let vocab = Arc::new(Vocabulary::from_tokens_with_eos(bytes, "<eos>"));
    let bound = Arc::new(BoundGrammar::try_new(grammar, vocab).map_err(|e| e.to_string())?);
    let mut verdicts = Vec::new();
    for f in files {
        let text = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
        verdicts.push(verdict(&bound, f.display().to_string(), &text));
    }
    let all = verdicts.iter().all(|v| v.verdict == "accepted");
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&verdicts).expect("verdicts serialize")
        );
    } else {
        for v in &verdicts {
            match &v.at {
                Some(at) => println!(
                    "{}: rejected at byte offset {} (line {}, column {})",
                    v.file, v.valid_bytes, at.line, at.column
                ),
                None => println!("{}: {} ({} bytes)", v.file, v.verdict, v.valid_bytes),
            }
        }
    }
    Ok(if all {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn verdict(bound: &Arc<BoundGrammar>, file: String, text: &[u8]) -> Verdict {
    let mut m = Matcher::new(bound.clone());
    let mut read = 0;
    let mut rejected = false;
    'chunks: for chunk in text.chunks(CHUNK) {
        if m.advance_bytes(chunk).is_ok() {
            read += chunk.len();
            continue;
        }
        for b in chunk {
            if m.advance_bytes(std::slice::from_ref(b)).is_err() {
                rejected = true;
                break 'chunks;
            }
            read += 1;
        }
    }
    let at = rejected.then(|| {
        let before = &text[..read];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = read
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
            + 1;
        Position { line, column }
    });
    let verdict = match (rejected, m.is_complete()) {
        (true, _) => "rejected",
        (false, true) => "accepted",
        (false, false) => "prefix",
    };
    Verdict {
        file,
        verdict,
        valid_bytes: read,
        at,
    }
}
