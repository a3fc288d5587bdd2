//! Compile-fail cases of `grammar!` and `#[derive(Constrained)]`
//! (trybuild). The `.stderr` files are reviewed: each error must point at
//! the culprit and say how to fix it. Cases that must compile and run are
//! plain tests (`tests/macro_pass.rs`): with compile-fail cases only,
//! trybuild runs `cargo check`, and does not build every dependency again.

#[test]
fn macros_ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.compile_fail("tests/ui/derive_fail/*.rs");
}
