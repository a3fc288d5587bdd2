use std::path::{Path, PathBuf};
use gcd_core::grammar::lark::parse_grammar;
use gcd_core::{analysis, transform};
fn lark_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries { if p.is_dir() { lark_files(&p, out); } else if p.extension().is_some_and(|e| e == "lark") { out.push(p); } }
}
#[test]
fn real() {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/grammars"));
    let mut files = vec![]; lark_files(&dir, &mut files);
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let Ok(g) = parse_grammar(&src) else { continue };
        let before = match analysis::analyze(&g) { Ok(_) => "ok".to_string(), Err(e) => format!("{}c/{:?}", analysis::conflict_count(&e), e.kind()) };
        let t = std::time::Instant::now();
        let r = transform::make_ll1(&g);
        let dt = t.elapsed();
        let (after, nrw, kinds) = match &r {
            Ok((h, rep)) => {
                let mut k: Vec<String> = rep.rewrites.iter().map(|r| format!("{:?}", r.kind)).collect(); k.sort(); k.dedup();
                (match analysis::analyze(h) { Ok(_) => "LL1".to_string(), Err(e) => format!("{}c/{:?}", analysis::conflict_count(&e), e.kind()) }, rep.rewrites.len(), k.join(","))
            }
            Err(e) => (format!("ERR {:?}: {}", e.kind(), e.diagnostics()[0].message.chars().take(150).collect::<String>()), 0, String::new()),
        };
        eprintln!("{:60} prods {:5} before {:14} after {:14} rewrites {:4} {:?} [{}]", f.strip_prefix(&dir).unwrap().display(), g.productions.len(), before, after, nrw, dt, kinds);
    }
}
