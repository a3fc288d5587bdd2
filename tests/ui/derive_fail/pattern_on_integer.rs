use gcd::Constrained;

#[derive(Constrained)]
struct S {
    #[constrained(pattern = "[0-9]+")]
    n: u64,
}

fn main() {}
