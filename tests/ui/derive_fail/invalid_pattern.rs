use gcd::Constrained;

#[derive(Constrained)]
struct S {
    #[constrained(pattern = "[a-z")]
    code: String,
}

fn main() {}
