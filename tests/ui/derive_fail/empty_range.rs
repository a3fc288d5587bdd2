use gcd::Constrained;

#[derive(Constrained)]
struct S {
    #[constrained(range = 10..=1)]
    n: u8,
}

fn main() {}
