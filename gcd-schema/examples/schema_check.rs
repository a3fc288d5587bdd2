//! Compiles schemas (no vocabulary) and prints each error (debugging aid):
//! `cargo run --example schema_check -- FILE...`. A file is either a
//! JSON-Schema-Test-Suite file (array of groups) or a MaskBench file.
fn main() {
    for f in std::env::args().skip(1) {
        let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        let schemas: Vec<(String, serde_json::Value)> = match &doc {
            serde_json::Value::Array(groups) => groups
                .iter()
                .map(|g| (g["description"].to_string(), g["schema"].clone()))
                .collect(),
            _ => vec![(String::new(), doc["schema"].clone())],
        };
        for (d, s) in schemas {
            if std::env::var_os("SIZE").is_some() {
                println!("SIZE {f}: {}", size(&s));
                continue;
            }
            let t = std::time::Instant::now();
            let r = gcd_schema::compile(&s, &Default::default());
            let ms = t.elapsed().as_secs_f64() * 1e3;
            match r {
                Err(e) => println!("ERR {f}: {d}: {e}"),
                Ok(c) => println!(
                    "OK {f}: {d}: {ms:.1}ms lexer_states={}",
                    c.lexer().num_states()
                ),
            }
        }
    }
}

/// Grammar size, for spotting what makes gcd-core slow.
#[allow(dead_code)]
fn size(s: &serde_json::Value) -> String {
    match gcd_schema::to_grammar(s, &Default::default()) {
        Ok(g) => format!(
            "rules={} productions={} terminals={}",
            g.nonterminals.len(),
            g.productions.len(),
            g.terminals.len()
        ),
        Err(e) => e.to_string(),
    }
}
