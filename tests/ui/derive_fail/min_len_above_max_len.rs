use gcd::Constrained;

#[derive(Constrained)]
struct S {
    #[constrained(min_len = 8, max_len = 2)]
    name: String,
}

fn main() {}
