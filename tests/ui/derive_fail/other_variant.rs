use gcd::Constrained;

#[derive(Constrained)]
#[serde(tag = "t")]
enum E {
    A,
    #[serde(other)]
    Unknown,
}

fn main() {}
