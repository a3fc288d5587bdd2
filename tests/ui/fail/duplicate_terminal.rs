gcd::grammar! {
    G;
    start: A
    A: "a"
    A: "b"
}

fn main() {}
