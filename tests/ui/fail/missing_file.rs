gcd::grammar! {
    G = file "grammars/does-not-exist.lark";
}

fn main() {}
