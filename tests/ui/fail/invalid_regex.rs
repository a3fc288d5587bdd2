gcd::grammar! {
    G;
    start: WORD
    WORD: /"[a-z+"/
}

fn main() {}
