use gcd::Constrained;

#[derive(Constrained)]
#[serde(content = "args")]
enum E {
    A(u8),
}

fn main() {}
