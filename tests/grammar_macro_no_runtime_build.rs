//! A `grammar!` item compiles no regex and runs no LL(1) analysis at run
//! time. Its own test binary, so that no other test moves the process-wide
//! counters.

use std::sync::Arc;

use gcd::core::counters;
use gcd::core::runtime::matcher::Matcher;
use gcd::core::vocab::Vocabulary;

gcd::grammar! {
    Command;
    start: verb
    ?verb: "open" PATH -> open | "grep" PATTERN PATH -> grep
    PATH: /"[a-z/.]+"/
    PATTERN: /"\"[^\"]*\""/
    %ignore " "
}

#[test]
fn no_dfa_is_built_and_no_analysis_runs_at_run_time() {
    let vocab = Arc::new(Vocabulary::from_tokens(
        ["grep", " ", "\"", "x", "\" ", "src", "/", "lib", ".rs"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect(),
        vec![],
    ));
    let tree = Command::parse("grep \"x\" src/lib.rs").unwrap();
    assert_eq!(tree.to_string(), r#"(start (grep "\"x\"" src/lib.rs))"#);
    let mut m = Matcher::new(Command::bind(vocab));
    for t in [0u32, 1, 2, 3, 4, 5, 6, 7, 8] {
        m.advance(t).unwrap();
    }
    assert!(m.is_complete());
    assert_eq!(counters::regex_compilations(), 0);
    assert_eq!(counters::ll1_analyses(), 0);
    // The counters do move when a grammar is built at run time.
    gcd::core::compiled::CompiledGrammar::new(
        &gcd::core::lark::parse_grammar(Command::SOURCE).unwrap(),
    )
    .unwrap();
    assert!(counters::regex_compilations() > 0 && counters::ll1_analyses() > 0);
}
