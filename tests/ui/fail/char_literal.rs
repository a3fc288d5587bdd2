gcd::grammar! {
    G;
    start: 'a'
}

fn main() {}
