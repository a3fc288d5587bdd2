use gcd::Constrained;

#[derive(Constrained)]
struct Outer {
    id: u32,
    #[serde(flatten)]
    inner: Inner,
}

#[derive(Constrained)]
struct Inner {
    a: u8,
}

fn main() {}
