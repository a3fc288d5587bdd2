//! Compile-fail and pass cases of `grammar!` (trybuild). The `.stderr` files
//! are reviewed: each error must point at the culprit and say how to fix it.

#[test]
fn grammar_macro_ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
