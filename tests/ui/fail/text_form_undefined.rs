gcd::grammar! {
    G = "
start: pair+
pair: KEY VALUE
KEY: /[a-z]+/
";
}

fn main() {}
