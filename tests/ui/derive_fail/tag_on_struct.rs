use gcd::Constrained;

#[derive(Constrained)]
#[serde(tag = "type")]
struct S {
    a: u8,
}

fn main() {}
