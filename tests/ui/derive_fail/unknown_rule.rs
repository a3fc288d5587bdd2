use gcd::Constrained;

#[derive(Constrained)]
struct S {
    #[constrained(maximum = 3)]
    n: u64,
}

fn main() {}
