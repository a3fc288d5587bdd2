gcd::grammar! {
    G;
    start: a
    a: b | "x"
    b: a
}

fn main() {}
