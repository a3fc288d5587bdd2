//! Procedural macros for gcd. The `grammar!` macro and `#[derive(Constrained)]` land here.
