//! The macros used as a user's crate uses them, each case a module: they
//! expand, compile and run. (These were trybuild `pass` cases; as plain
//! tests they share the workspace's build, and trybuild, left with
//! compile-fail cases only, checks instead of building every dependency a
//! second time.)

mod arith {
    gcd::grammar! {
        /// Sums of products.
        pub Arith;
        start: expr
        ?expr: expr "+" term -> add | term
        ?term: term "*" atom -> mul | atom
        ?atom: NUMBER | "(" expr ")"
        NUMBER: /"[0-9]+"/
        %import common.WS
        %ignore WS
    }

    #[test]
    fn runs() {
        let tree = Arith::parse("1 + 2 * (3 + 4)").unwrap();
        assert_eq!(tree.to_string(), "(start (add 1 (mul 2 (add 3 4))))");
    }
}

mod derive {
    use gcd::constrained::{compiled, Whitespace};
    use gcd::Constrained;
    use serde::Deserialize;

    #[derive(Constrained, Deserialize)]
    #[serde(tag = "tool", content = "args", rename_all = "snake_case")]
    enum ToolCall {
        Search {
            query: String,
            #[constrained(range = 1..=10)]
            limit: u8,
        },
        Weather {
            city: String,
            unit: Option<Unit>,
        },
    }

    #[derive(Constrained, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Unit {
        Celsius,
        Fahrenheit,
    }

    // Without serde's derive, `#[serde]` attributes are still read.
    #[derive(Constrained)]
    struct Standalone {
        #[serde(rename = "ID")]
        id: u64,
    }

    #[test]
    fn runs() {
        assert!(compiled::<ToolCall>(Whitespace::Compact).is_ok());
        assert!(compiled::<Standalone>(Whitespace::Spaced).is_ok());
    }
}

mod keywords_and_priorities {
    // Case-insensitive literals, priorities, ranges, repetition counts, `!` and
    // `_` rules: the whole token form.
    gcd::grammar! {
        Query;
        start: _select
        _select: "select"i columns "from"i NAME [limit]
        columns: NAME ("," NAME)*
        !limit: "limit"i DIGIT ~ 1..3
        NAME.1: ("a".."z")+
        DIGIT: "0".."9"
        %ignore " "
    }

    #[test]
    fn runs() {
        let t = Query::parse("SELECT a, b FROM t LIMIT 42").unwrap();
        assert_eq!(t.to_string(), "(start (columns a b) t (limit LIMIT 4 2))");
    }
}

mod optional_empty_terminal {
    // A terminal that also matches "" is optional where it is used
    // (llguidance's reading), through the snapshot `grammar!` embeds.
    gcd::grammar! {
        Padded;
        start: SPACES "x" ~ 1..2
        SPACES: /" *"/
    }

    #[test]
    fn runs() {
        assert!(Padded::parse("x").is_ok());
        assert!(Padded::parse("  xx").is_ok());
        assert!(Padded::parse("xxx").is_err());
        assert!(Padded::parse(" ").is_err());
    }
}

mod text_form {
    gcd::grammar! {
        pub(crate) Csv = r#"
    start: row ("\n" row)*
    row: FIELD ("," FIELD)*
    FIELD: /[a-z0-9]+/
    "#;
    }

    #[test]
    fn runs() {
        let tree = Csv::parse("a,b\nc,1").unwrap();
        assert_eq!(tree.children().len(), 2);
        assert!(Csv::parse("a,,b").is_err());
    }
}
