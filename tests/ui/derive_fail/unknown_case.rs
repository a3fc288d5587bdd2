use gcd::Constrained;

#[derive(Constrained)]
#[serde(rename_all = "Title Case")]
struct S {
    first_name: String,
}

fn main() {}
