gcd::grammar! {
    pub(crate) Csv = r#"
start: row ("\n" row)*
row: FIELD ("," FIELD)*
FIELD: /[a-z0-9]+/
"#;
}

fn main() {
    let tree = Csv::parse("a,b\nc,1").unwrap();
    assert_eq!(tree.children().len(), 2);
    assert!(Csv::parse("a,,b").is_err());
}
