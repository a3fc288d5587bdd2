gcd::grammar! {
    G;
    start: SPACES "x"
    SPACES: /" *"/
}

fn main() {}
