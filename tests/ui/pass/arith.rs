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

fn main() {
    let tree = Arith::parse("1 + 2 * (3 + 4)").unwrap();
    assert_eq!(tree.to_string(), "(start (add 1 (mul 2 (add 3 4))))");
}
