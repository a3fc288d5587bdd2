gcd::grammar! {
    G;
    start: greeting name
    greeting: "hello"
}

fn main() {}
