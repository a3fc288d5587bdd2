use gcd::Constrained;

#[derive(Constrained)]
struct S {
    #[constrained(range = 0..=300)]
    n: u8,
}

fn main() {}
