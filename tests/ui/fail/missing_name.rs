gcd::grammar! {
    start: "a"
}

fn main() {}
