use gcd::Constrained;

#[derive(Constrained)]
#[serde(tag = "kind")]
enum E {
    Pair(u8, u8),
}

fn main() {}
