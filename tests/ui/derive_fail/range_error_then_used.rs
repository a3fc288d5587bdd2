// The range error is the only error: the type stays `Constrained`, so its
// uses do not add follow-on errors (E0599) to it.
use gcd::Constrained;

#[derive(Constrained, serde::Deserialize)]
struct S {
    #[constrained(range = 0..=300)]
    n: u8,
}

fn main() {
    let vocab = std::sync::Arc::new(gcd::core::Vocabulary::o200k_base().unwrap());
    let _ = gcd::Decoder::<S>::new(vocab);
}
