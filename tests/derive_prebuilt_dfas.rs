//! `#[derive(Constrained)]` determinizes a field's own pattern and range at
//! compile time: linking the type's grammar finds those DFAs ready. (One
//! test in its own binary: the counters are process-wide.)

use gcd::constrained::{Shape, ShapeSet, StringRules};
use gcd::core::counters;
use gcd::core::json::regexes_to_prebuild;
use gcd::core::lexer::TerminalDfa;
use gcd::Constrained;

#[derive(Constrained)]
#[allow(dead_code)]
struct Order {
    #[constrained(pattern = "[A-Z]{3}-[0-9]{4}")]
    sku: String,
    #[constrained(range = 1..=250)]
    quantity: u16,
    #[constrained(max_len = 12)]
    note: String,
}

#[test]
fn own_dfas_come_prebuilt() {
    // Runs the preloads; nothing has been determinized yet.
    Order::shape(&mut ShapeSet::new());
    assert_eq!(counters::regex_compilations(), 0);
    let own: Vec<String> = [
        Shape::String(StringRules {
            pattern: Some("[A-Z]{3}-[0-9]{4}".into()),
            min_len: None,
            max_len: None,
        }),
        Shape::Integer { min: 1, max: 250 },
        Shape::String(StringRules {
            pattern: None,
            min_len: None,
            max_len: Some(12),
        }),
    ]
    .iter()
    .flat_map(|s| regexes_to_prebuild(s).unwrap())
    .collect();
    assert_eq!(own.len(), 4);
    for re in &own {
        let dfa = TerminalDfa::new(re).unwrap();
        assert_eq!(
            counters::regex_compilations(),
            0,
            "{re} was determinized at run time"
        );
        assert!(dfa.len() > 1);
    }
    // Built here (a group around the regex misses the cache), the tables
    // are the same.
    for (i, re) in own.iter().enumerate() {
        let here = TerminalDfa::new(&format!("(?:{re})")).unwrap();
        assert_eq!(counters::regex_compilations(), i + 1);
        assert_eq!(here, TerminalDfa::new(re).unwrap(), "{re}");
    }
    // The linked grammar uses them: its terminals are the prebuilt regexes
    // (the fourth is the pattern's escape check, not a terminal).
    let linked = gcd::constrained::compiled::<Order>(Order::WHITESPACE).unwrap();
    let used = linked
        .grammar()
        .terminals
        .iter()
        .filter(|t| own.contains(&t.pattern.to_regex()))
        .count();
    assert_eq!(used, 3);
}
