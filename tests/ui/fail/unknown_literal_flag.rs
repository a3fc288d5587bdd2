gcd::grammar! {
    G;
    start: "select"x
}

fn main() {}
