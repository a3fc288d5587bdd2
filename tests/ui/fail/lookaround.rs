gcd::grammar! {
    G;
    start: A
    A: /"a(?=b)"/
}

fn main() {}
