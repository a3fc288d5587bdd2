gcd::grammar! {
    G;
    start: A
    A: /"(a)\\1"/
}

fn main() {}
