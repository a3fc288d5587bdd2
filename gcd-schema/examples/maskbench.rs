//! `cargo run --release -p gcd-schema --example maskbench -- --tokenizer T --data DIR [--stride N] [--max-lexer-states N] [--schema-order] [--failures]`
use std::sync::Arc;

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut tok, mut data, mut stride, mut show) = (None, None, 1usize, false);
    let mut max_lexer_states: Option<usize> = None;
    // MaskBench's valid documents keep their own member order.
    let mut properties = gcd_schema::PropertyOrder::Any;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--tokenizer" => tok = args.next(),
            "--data" => data = args.next(),
            "--stride" => stride = args.next().and_then(|s| s.parse().ok()).unwrap_or(1),
            "--failures" => show = true,
            "--max-lexer-states" => max_lexer_states = args.next().and_then(|s| s.parse().ok()),
            "--schema-order" => properties = gcd_schema::PropertyOrder::Schema,
            _ => {
                eprintln!("unknown argument {a}");
                std::process::exit(2);
            }
        }
    }
    let (Some(tok), Some(data)) = (tok, data) else {
        eprintln!("usage: maskbench --tokenizer T --data DIR [--stride N] [--failures]");
        std::process::exit(2);
    };
    let vocab = match gcd_core::vocab::Vocabulary::load(&tok) {
        Ok(v) => Arc::new(v),
        Err(e) => {
            eprintln!("cannot load tokenizer {tok}: {e}");
            std::process::exit(1);
        }
    };
    let cfg = gcd_schema::maskbench::Config {
        data: data.into(),
        stride,
        options: gcd_schema::Options {
            max_lexer_states,
            properties,
            ..Default::default()
        },
    };
    let report = gcd_schema::maskbench::run(&cfg, vocab, &mut |done, total| {
        if done % 10 == 0 || done == total {
            eprint!("\r{done}/{total}");
        }
    })
    .unwrap_or_else(|e| {
        eprintln!("maskbench: {e}");
        std::process::exit(1);
    });
    eprintln!();
    print!("{}", report.summary());
    print!("{}", report.breakdown());
    if show {
        for f in &report.failures {
            println!("FAIL {f}");
        }
    }
}
