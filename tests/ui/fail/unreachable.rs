gcd::grammar! {
    G;
    start: "a"
    orphan: "b"
}

fn main() {}
