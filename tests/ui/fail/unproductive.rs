gcd::grammar! {
    G;
    start: "a" | forever
    forever: "b" forever
}

fn main() {}
