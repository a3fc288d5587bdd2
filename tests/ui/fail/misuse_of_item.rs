gcd::grammar! {
    G;
    start: "a"
}

fn main() {
    let _ = G::parse(42);
}
