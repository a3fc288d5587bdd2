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

fn main() {
    let t = Query::parse("SELECT a, b FROM t LIMIT 42").unwrap();
    assert_eq!(t.to_string(), "(start (columns a b) t (limit LIMIT 4 2))");
}
