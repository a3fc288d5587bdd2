gcd::grammar! {
    G;
    start: END
    END: "a" <|im_end|>
}

fn main() {}
