gcd::grammar! {
    G;
    start: "call " @Missing
}

fn main() {}
