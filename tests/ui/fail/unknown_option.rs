// An option the macro does not know is named, with the ones it does.
gcd::grammar! {
    #[gcd(dynamic)]
    Runs;
    start: A A
    A: /"a+"/
}

fn main() {}
