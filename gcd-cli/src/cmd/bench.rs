//! `gcd bench`: load, bind and mask times of one grammar over a corpus of
//! MaskBench files.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gcd_cli::stats::Summary;
use gcd_core::bind::BoundGrammar;
use gcd_core::compiled::CompiledGrammar;
use gcd_core::runtime::matcher::Matcher;
use gcd_core::vocab::trie::TokenTrie;
use serde_json::json;

use super::{ms, summarize, timed};
use crate::args::{load_vocab, GlobalArgs, GrammarArgs, Result};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    grammar: GrammarArgs,
    /// A directory of MaskBench files (their test instances are replayed).
    #[arg(long)]
    data: PathBuf,
    /// Use every N-th file.
    #[arg(long, default_value_t = 1)]
    stride: usize,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<ExitCode> {
    let GrammarArgs { grammar, tokenizer } = &args.grammar;
    let (data, stride, json) = (&args.data, args.stride, global.json);
    let (g, t_compile) = timed(|| global.load_grammar(grammar))?;
    let (vocab, t_vocab) = timed(|| load_vocab(tokenizer))?;
    let t0 = Instant::now();
    let trie = Arc::new(TokenTrie::new(&vocab));
    let t_trie = t0.elapsed();
    let t0 = Instant::now();
    let bound = Arc::new(BoundGrammar::with_trie(
        g.clone(),
        vocab.clone(),
        trie.clone(),
    ));
    drop(Matcher::new(bound.clone()).compute_mask(vocab.len()));
    let t_first_mask = t0.elapsed();
    let t0 = Instant::now();
    let mut slowest_state = Duration::ZERO;
    for q in 0..bound.num_states() as u32 {
        let t = Instant::now();
        bound.state(q);
        slowest_state = slowest_state.max(t.elapsed());
    }
    bound.build_all();
    let t_bind = t_first_mask + t0.elapsed();
    let mut files: Vec<PathBuf> = std::fs::read_dir(data)
        .map_err(|e| {
            format!(
                "--data {}: {e} (pass a folder of MaskBench-style JSON files)",
                data.display()
            )
        })?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let width = vocab.len();
    let mut mask = bitvec::bitvec![u64, bitvec::order::Lsb0; 0; width];
    let mut times = Vec::new();
    let (mut docs, mut rejected) = (0, 0);
    let mut slowest = (Duration::ZERO, String::new());
    for f in files.iter().step_by(stride.max(1)) {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(
            &std::fs::read(f).map_err(|e| e.to_string())?,
        ) else {
            continue;
        };
        for t in v["tests"].as_array().into_iter().flatten() {
            let text = gcd_cli::pyjson::to_python_json(&t["data"]);
            let tokens = vocab.encode(&text).map_err(|e| e.to_string())?;
            let mut m = Matcher::new(bound.clone());
            docs += 1;
            for &tok in &tokens {
                let t0 = Instant::now();
                m.fill_mask(&mut mask);
                let dt = t0.elapsed();
                if dt > slowest.0 {
                    let out = m.output();
                    let tail =
                        String::from_utf8_lossy(&out[out.len().saturating_sub(40)..]).into_owned();
                    slowest = (dt, format!("{} after ...{tail:?}", f.display()));
                }
                times.push(dt);
                if !mask[tok as usize] || m.advance(tok).is_err() {
                    rejected += 1;
                    eprintln!("{}: rejected at byte {}", f.display(), m.output().len());
                    break;
                }
            }
        }
    }
    let grammar_snapshot = g.to_bytes();
    let (_, t_grammar_load) =
        timed(|| CompiledGrammar::from_bytes(&grammar_snapshot).map_err(|e| e.to_string()))?;
    let snapshot = bound.to_bytes();
    let (loaded, t_load) = timed(|| {
        BoundGrammar::from_bytes(g.clone(), vocab.clone(), &snapshot).map_err(|e| e.to_string())
    })?;
    drop(loaded);
    let masks = Summary::of_durations(&times);
    if json {
        let report = json!({
            "grammar": grammar,
            "compile_ms": ms(t_compile),
            "snapshot_load_ms": ms(t_grammar_load),
            "snapshot_bytes": grammar_snapshot.len(),
            "tokenizer": vocab.name(),
            "vocab_ids": vocab.len(),
            "tokenizer_load_ms": ms(t_vocab),
            "trie_ms": ms(t_trie),
            "trie_nodes": trie.num_nodes(),
            "trie_bytes": trie.heap_bytes(),
            "first_mask_ms": ms(t_first_mask),
            "lexer_states": g.lexer().num_states(),
            "bind_all_ms": ms(t_bind),
            "slowest_state_ms": ms(slowest_state),
            "table_bytes": bound.table_bytes(),
            "prebuilt_load_ms": ms(t_load),
            "prebuilt_bytes": snapshot.len(),
            "documents": docs,
            "rejected": rejected,
            "masks_us": masks,
            "slowest_mask": {"us": slowest.0.as_secs_f64() * 1e6, "where": slowest.1},
        });
        println!("{report:#}");
    } else {
        println!(
            "grammar {grammar}: compile {:.2} ms, or load its grammar! snapshot {:.2} ms ({:.0} KB)",
            ms(t_compile),
            ms(t_grammar_load),
            grammar_snapshot.len() as f64 / 1e3
        );
        println!(
            "tokenizer {} ({} ids): load {:.0} ms, trie {:.1} ms ({} nodes, {:.1} MB)",
            vocab.name(),
            vocab.len(),
            ms(t_vocab),
            ms(t_trie),
            trie.num_nodes(),
            trie.heap_bytes() as f64 / 1e6
        );
        println!(
            "bind: first mask after {:.2} ms (tables are built per lexer state on first use), all {} lexer states {:.1} ms (slowest state {:.2} ms), tables {:.2} MB",
            ms(t_first_mask),
            g.lexer().num_states(),
            ms(t_bind),
            ms(slowest_state),
            bound.table_bytes() as f64 / 1e6
        );
        println!(
            "start-up with tables prebuilt for this tokenizer: load {:.1} ms ({:.1} MB) vs trie + bind {:.1} ms",
            ms(t_load),
            snapshot.len() as f64 / 1e6,
            ms(t_trie) + ms(t_bind)
        );
        println!(
            "replayed {docs} documents ({rejected} rejected), masks {}",
            summarize(&masks)
        );
        println!(
            "slowest mask {:.1}us: {}",
            slowest.0.as_secs_f64() * 1e6,
            slowest.1
        );
    }
    Ok(if rejected == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
