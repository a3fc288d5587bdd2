//! `%import` from other grammar files: what is renamed how, what is shared,
//! what is left behind, and the errors (a missing file, a missing name, a
//! broken module, a cycle), on modules held in memory.

use std::collections::HashMap;

use gcd_core::grammar::Grammar;
use gcd_core::lark::{parse_with_embeds, Embeds, FileImports};
use gcd_core::runtime::tree::parse;
use gcd_core::{CompiledGrammar, GrammarError};

/// Grammar files by module name, for relative imports.
struct Modules(HashMap<&'static str, &'static str>);

impl Embeds for Modules {
    fn module(&self, module: &str, relative: bool) -> Result<String, String> {
        match (relative, self.0.get(module)) {
            (true, Some(text)) => Ok(text.to_string()),
            _ => Err(format!("no module {module}")),
        }
    }
}

fn load(src: &str, modules: &[(&'static str, &'static str)]) -> Result<Grammar, GrammarError> {
    let m = Modules(modules.iter().copied().collect());
    parse_with_embeds(src, &Default::default(), &m)?.build()
}

const CSV: &str = r##"
start: header _NL row+
header: "#" WORD ("," WORD)*
row: _cell ("," _cell)* _NL
_cell: WORD | INT
_NL: "\n"
WORD: /[a-z]+/
INT: /[0-9]+/
%ignore " "
"##;

#[test]
fn imports_rename_into_the_module_namespace() {
    let g = load(
        "start: csv__start | csv__row\n%import .csv.start -> csv__start\n%import .csv.row -> csv__row\n",
        &[("csv", CSV)],
    )
    .unwrap();
    let rules: Vec<&str> = g.nonterminals.iter().map(|n| n.name.as_str()).collect();
    let terms: Vec<&str> = g.terminals.iter().map(|t| t.name.as_str()).collect();
    for r in ["csv__start", "csv__row", "csv__header", "_csv__cell"] {
        assert!(rules.contains(&r), "{r} not in {rules:?}");
    }
    for t in ["CSV__WORD", "CSV__INT", "_CSV__NL"] {
        assert!(terms.contains(&t), "{t} not in {terms:?}");
    }
    let c = CompiledGrammar::new(&g).unwrap();
    assert!(parse(&c, "a,1\n").is_ok());
    assert!(parse(&c, "#ab\nx,2\n").is_ok());
    // The module's `%ignore " "` stays behind, as in Lark.
    assert!(parse(&c, "a, 1\n").is_err());
    // Only what the imported rules use comes along.
    let g = load(
        "start: csv__row\n%import .csv.row -> csv__row\n",
        &[("csv", CSV)],
    )
    .unwrap();
    assert!(g.nonterminals.iter().all(|n| n.name != "csv__header"));
}

#[test]
fn names_listed_from_one_module_are_shared() {
    // `_NL` listed: the module's rules use this grammar's `_NL`.
    let g = load(
        "start: csv__row+ _NL\n%import .csv.row -> csv__row\n%import .csv._NL -> _NL\n",
        &[("csv", CSV)],
    )
    .unwrap();
    let terms: Vec<&str> = g.terminals.iter().map(|t| t.name.as_str()).collect();
    assert!(
        terms.contains(&"_NL") && !terms.contains(&"_CSV__NL"),
        "{terms:?}"
    );
    let c = CompiledGrammar::new(&g).unwrap();
    assert!(parse(&c, "a,1\nb\n\n").is_ok());
    // A list takes several names at once.
    let g = load(
        "start: row WORD\n%import .csv (row, WORD)\n",
        &[("csv", CSV)],
    )
    .unwrap();
    let c = CompiledGrammar::new(&g).unwrap();
    assert!(parse(&c, "a\nb").is_ok());
}

#[test]
fn templates_and_nested_imports_come_along() {
    let list = "items: _sep{ITEM, \",\"}\n_sep{x, s}: x (s x)*\nITEM: /[a-z]+/\n";
    let outer = "block: \"[\" inner__items \"]\"\n%import .list.items -> inner__items\n";
    let g = load(
        "start: b\n%import .outer.block -> b\n",
        &[("list", list), ("outer", outer)],
    )
    .unwrap();
    let c = CompiledGrammar::new(&g).unwrap();
    assert!(parse(&c, "[a,b,c]").is_ok());
    assert!(parse(&c, "[a,,b]").is_err());
}

fn error_of(src: &str, modules: &[(&'static str, &'static str)]) -> String {
    match load(src, modules) {
        Ok(_) => panic!("{src} loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn import_errors_name_the_problem() {
    let e = error_of("start: x\n%import .nope.x\n", &[]);
    assert!(e.contains("no module nope"), "{e}");
    let e = error_of("start: x\n%import .csv.x\n", &[("csv", CSV)]);
    assert!(
        e.contains("the grammar `csv` defines no rule or terminal `x`"),
        "{e}"
    );
    let e = error_of("start: x\n%import .bad.x\n", &[("bad", "x: \"a\"\ny: (\n")]);
    assert!(e.contains("in the imported grammar `bad`, line 2"), "{e}");
    // Two grammars importing each other: an error, quickly.
    let a = "x: \"a\" y\n%import .b.y\n";
    let b = "y: \"b\" | x\n%import .a.x\n";
    let t0 = std::time::Instant::now();
    let e = error_of("start: x\n%import .a.x\n", &[("a", a), ("b", b)]);
    assert!(e.contains("imports nest deeper than 16"), "{e}");
    assert!(t0.elapsed().as_secs() < 5);
    // A name the importing grammar already defines.
    let e = error_of(
        "start: csv__row\ncsv__row: \"x\"\n%import .csv.row -> csv__row\n",
        &[("csv", CSV)],
    );
    assert!(e.contains("csv__row"), "{e}");
    // Without a directory or a module source, relative imports say how.
    let e = gcd_core::lark::parse_grammar("start: x\n%import .csv.x\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("read from its file"), "{e}");
    struct Plain;
    impl Embeds for Plain {}
    let files = FileImports {
        dir: std::env::temp_dir().join("gcd-no-such-dir"),
        inner: &Plain,
    };
    let e = parse_with_embeds("start: x\n%import .csv.x\n", &Default::default(), &files)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("cannot read") && e.contains("csv.lark"), "{e}");
}
