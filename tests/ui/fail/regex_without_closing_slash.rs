gcd::grammar! {
    G;
    start: A
    A: /"[a-z]+"
}

fn main() {}
