use gcd::Constrained;

#[derive(Constrained)]
struct Flag(bool);

/// Both variants are a JSON boolean, through a newtype and a box.
#[derive(Constrained)]
#[serde(untagged)]
enum Setting {
    Count(u32),
    On(Flag),
    Enabled(Box<bool>),
}

fn main() {}
