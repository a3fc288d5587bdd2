//! Helpers shared by the unit tests.

/// Whole-string matcher for a regex, to check generated regexes against.
pub(crate) fn full(re: &str) -> impl Fn(&str) -> bool {
    let r = regex_automata::dfa::regex::Regex::new(&format!("^(?:{re})$")).unwrap();
    move |s: &str| r.is_match(s)
}
