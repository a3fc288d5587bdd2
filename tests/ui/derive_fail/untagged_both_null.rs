use gcd::Constrained;

/// `null` reads as `Nothing` and as `Maybe(None)`: one token cannot decide.
#[derive(Constrained)]
#[serde(untagged)]
enum Reply {
    Text(String),
    Nothing,
    Maybe(Option<u32>),
}

fn main() {}
