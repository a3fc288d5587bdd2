use gcd::Constrained;

#[derive(Constrained)]
#[serde(tag = "kind")]
enum E {
    Wrapped(Inner),
}

#[derive(Constrained)]
struct Inner {
    a: u8,
}

fn main() {}
