//! `format` values we can enforce exactly, as anchored patterns.
//!
//! Each format is written as a regex over the decoded string and goes
//! through [`crate::pattern::translate`] like any `pattern`, so escaped
//! spellings are handled the same way. Formats not listed are errors: an
//! approximate `email` or `uri` regex would silently allow or forbid
//! strings the validator disagrees on.

/// Four-digit years divisible by 4, minus centuries not divisible by 400.
const LEAP_YEAR: &str =
    "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)";

fn full_date() -> String {
    // Months with 31, 30 and 28/29 days; Feb 29 only in leap years.
    format!(
        "(?:[0-9]{{4}}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|{LEAP_YEAR}-02-29)"
    )
}

/// RFC 3339 full-time. A leap second (`:60`) is accepted only at 23:59 UTC
/// written with a zero offset; leap seconds written in other offsets are
/// refused (a known, safe gap: valid strings rejected, never the reverse).
fn full_time() -> &'static str {
    r"(?:(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?(?:[zZ]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])|23:59:60(?:\.[0-9]+)?(?:[zZ]|[+-]00:00))"
}

/// The anchored pattern of a supported format, or `None`.
pub fn pattern(format: &str) -> Option<String> {
    let body = match format {
        "date" => full_date(),
        "time" => full_time().to_string(),
        "date-time" => format!("{}[tT]{}", full_date(), full_time()),
        "uuid" => {
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}".into()
        }
        "ipv4" => {
            let octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
            format!("{octet}\\.{octet}\\.{octet}\\.{octet}")
        }
        _ => return None,
    };
    Some(format!("^{body}$"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::tests::full;

    fn m(f: &str) -> impl Fn(&str) -> bool {
        full(&crate::pattern::translate(&pattern(f).unwrap(), crate::Escapes::Any).unwrap())
    }

    #[test]
    fn dates_respect_month_lengths_and_leap_years() {
        let d = m("date");
        for ok in ["2020-02-29", "2000-02-29", "2021-12-31", "1999-04-30"] {
            assert!(d(ok), "{ok}");
        }
        for bad in [
            "2021-02-29",
            "1900-02-29",
            "2021-04-31",
            "2021-13-01",
            "2021-1-01",
            "2021-00-10",
        ] {
            assert!(!d(bad), "{bad}");
        }
    }

    #[test]
    fn times_and_others() {
        let t = m("time");
        assert!(t("08:30:06Z"));
        assert!(t("08:30:06.283185+01:00"));
        assert!(t("23:59:60Z"));
        assert!(!t("24:00:00Z"));
        assert!(!t("08:30:06"));
        assert!(!t("12:59:60Z"));
        let dt = m("date-time");
        assert!(dt("1963-06-19T08:30:06.283185Z"));
        assert!(!dt("1963-06-19 08:30:06Z"));
        let ip = m("ipv4");
        assert!(ip("192.168.0.1"));
        assert!(!ip("256.1.1.1"));
        assert!(!ip("01.1.1.1"));
        let u = m("uuid");
        assert!(u("2EB8AA08-AA98-11EA-B4AA-73B441D16380"));
        assert!(!u("2eb8aa08-aa98-11ea-b4aa-73b441d1638"));
        assert!(pattern("email").is_none());
    }
}
