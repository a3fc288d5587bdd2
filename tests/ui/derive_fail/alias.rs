use gcd::Constrained;

#[derive(Constrained)]
struct S {
    #[serde(alias = "colour")]
    color: String,
}

fn main() {}
