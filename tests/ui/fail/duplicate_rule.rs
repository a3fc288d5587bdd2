gcd::grammar! {
    G;
    start: item
    item: "a"
    item: "b"
}

fn main() {}
