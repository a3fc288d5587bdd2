gcd::grammar! {
    G;
    start: "n" NUMBER
}

fn main() {}
