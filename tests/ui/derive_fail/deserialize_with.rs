use gcd::Constrained;

#[derive(Constrained)]
struct S {
    #[serde(deserialize_with = "parse_loose")]
    n: u32,
}

fn main() {}
