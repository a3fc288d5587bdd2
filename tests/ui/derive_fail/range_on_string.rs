use gcd::Constrained;

#[derive(Constrained)]
struct S {
    #[constrained(range = 0..=3)]
    s: String,
}

fn main() {}
