//! `%llguidance { ... }`: llguidance's grammar options. gcd has no such
//! switches, so each option is either what gcd does anyway (accepted) or
//! something gcd cannot do (refused by name); llguidance itself ignores
//! fields it does not know, gcd refuses them so that nothing is silently
//! dropped.

use crate::error::DiagnosticKind;

/// A refusal: its kind and message.
type Refusal = (DiagnosticKind, String);

/// Checks one `%llguidance` object (several are merged in llguidance, and
/// each is checked alone here: every accepted value agrees with the
/// others).
pub(super) fn check(options: &serde_json::Value) -> Result<(), Refusal> {
    let syntax = |m: String| (DiagnosticKind::Syntax, m);
    let unsupported = |m: String| (DiagnosticKind::Unsupported, m);
    let Some(obj) = options.as_object() else {
        return Err(syntax(
            "`%llguidance` takes a JSON object of options, e.g. `%llguidance {}`".into(),
        ));
    };
    for (name, value) in obj {
        let flag = || {
            value
                .as_bool()
                .ok_or_else(|| syntax(format!("`%llguidance` option `{name}` takes true or false")))
        };
        match name.as_str() {
            // Forcing is how llguidance tokenizes bytes the grammar forces;
            // gcd's masks allow every tokenization either way.
            "no_forcing" => {
                flag()?;
            }
            "allow_invalid_utf8" => {
                if flag()? {
                    return Err(unsupported(
                        "`%llguidance` option `allow_invalid_utf8: true` is not supported: \
                         gcd's terminals match UTF-8 text only"
                            .into(),
                    ));
                }
            }
            // gcd lets ignored text (`%ignore`) lead the output.
            "allow_initial_skip" => {
                if !flag()? {
                    return Err(unsupported(
                        "`%llguidance` option `allow_initial_skip: false` is not supported: \
                         gcd always lets `%ignore`d text come first"
                            .into(),
                    ));
                }
            }
            "skip_repetition" => {
                return Err(unsupported(format!(
                    "`%llguidance` option `skip_repetition` ({value}) is not supported: gcd \
                     lets an `%ignore` pattern match several times between two lexemes"
                )))
            }
            _ => {
                return Err(unsupported(format!(
                    "`%llguidance` option `{name}` is not supported (gcd reads `no_forcing`, \
                     `allow_invalid_utf8: false` and `allow_initial_skip: true`)"
                )))
            }
        }
    }
    Ok(())
}
