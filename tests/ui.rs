//! Compile-fail and pass cases of `grammar!` and `#[derive(Constrained)]`
//! (trybuild). The `.stderr` files
//! are reviewed: each error must point at the culprit and say how to fix it.

#[test]
fn macros_ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.compile_fail("tests/ui/derive_fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
