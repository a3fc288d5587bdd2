gcd::grammar! {
    G;
    start: NOTHING "x"
    // A pattern that also matches "" is used as optional (llguidance's
    // reading); an empty literal has no non-empty part to use.
    NOTHING: ""
}

fn main() {}
