gcd::grammar! {
    G;
    start: "a" <|im_end
}

fn main() {}
