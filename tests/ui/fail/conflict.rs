// Needs two tokens of lookahead: is the first NAME the optional title?
gcd::grammar! {
    Names;
    start: title? NAME
    title: NAME
    NAME: /"[a-z]+"/
    %ignore " "
}

fn main() {}
