use gcd::Constrained;

#[derive(Constrained)]
union U {
    a: u32,
    b: f32,
}

fn main() {}
