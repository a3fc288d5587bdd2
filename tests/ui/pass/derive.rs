use gcd::constrained::{compiled, Whitespace};
use gcd::Constrained;
use serde::Deserialize;

#[derive(Constrained, Deserialize)]
#[serde(tag = "tool", content = "args", rename_all = "snake_case")]
enum ToolCall {
    Search {
        query: String,
        #[constrained(range = 1..=10)]
        limit: u8,
    },
    Weather { city: String, unit: Option<Unit> },
}

#[derive(Constrained, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

// Without serde's derive, `#[serde]` attributes are still read.
#[derive(Constrained)]
struct Standalone {
    #[serde(rename = "ID")]
    id: u64,
}

fn main() {
    assert!(compiled::<ToolCall>(Whitespace::Compact).is_ok());
    assert!(compiled::<Standalone>(Whitespace::Spaced).is_ok());
}
