use gcd::Constrained;

#[derive(Constrained)]
#[serde(transparent)]
struct S {
    a: u8,
    b: u8,
}

fn main() {}
