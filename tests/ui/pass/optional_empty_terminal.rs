// A terminal that also matches "" is optional where it is used
// (llguidance's reading), through the snapshot `grammar!` embeds.
gcd::grammar! {
    Padded;
    start: SPACES "x" ~ 1..2
    SPACES: /" *"/
}

fn main() {
    assert!(Padded::parse("x").is_ok());
    assert!(Padded::parse("  xx").is_ok());
    assert!(Padded::parse("xxx").is_err());
    assert!(Padded::parse(" ").is_err());
}
