gcd::grammar! {
    G;
    start: AS AS
    AS: /"a+"/
}

fn main() {}
