use gcd::Constrained;

#[derive(Constrained)]
struct S {
    elapsed: std::time::Duration,
}

fn main() {}
