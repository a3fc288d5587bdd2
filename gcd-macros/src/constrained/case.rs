//! serde's `rename_all` case styles, applied as serde applies them: field
//! names are written in snake_case, variant names in PascalCase.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl Case {
    pub fn parse(s: &str) -> Option<Case> {
        Some(match s {
            "lowercase" => Case::Lower,
            "UPPERCASE" => Case::Upper,
            "PascalCase" => Case::Pascal,
            "camelCase" => Case::Camel,
            "snake_case" => Case::Snake,
            "SCREAMING_SNAKE_CASE" => Case::ScreamingSnake,
            "kebab-case" => Case::Kebab,
            "SCREAMING-KEBAB-CASE" => Case::ScreamingKebab,
            _ => return None,
        })
    }

    pub fn variant(self, name: &str) -> String {
        match self {
            Case::Pascal => name.to_string(),
            Case::Lower => name.to_ascii_lowercase(),
            Case::Upper => name.to_ascii_uppercase(),
            Case::Camel => name[..1].to_ascii_lowercase() + &name[1..],
            Case::Snake => {
                let mut out = String::new();
                for (i, c) in name.char_indices() {
                    if c.is_uppercase() && i > 0 {
                        out.push('_');
                    }
                    out.push(c.to_ascii_lowercase());
                }
                out
            }
            Case::ScreamingSnake => Case::Snake.variant(name).to_ascii_uppercase(),
            Case::Kebab => Case::Snake.variant(name).replace('_', "-"),
            Case::ScreamingKebab => Case::ScreamingSnake.variant(name).replace('_', "-"),
        }
    }

    pub fn field(self, name: &str) -> String {
        match self {
            Case::Lower | Case::Snake => name.to_string(),
            Case::Upper | Case::ScreamingSnake => name.to_ascii_uppercase(),
            Case::Pascal => {
                let mut out = String::new();
                let mut capitalize = true;
                for c in name.chars() {
                    if c == '_' {
                        capitalize = true;
                    } else if capitalize {
                        out.push(c.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            Case::Camel => {
                let pascal = Case::Pascal.field(name);
                pascal[..1].to_ascii_lowercase() + &pascal[1..]
            }
            Case::Kebab => name.replace('_', "-"),
            Case::ScreamingKebab => Case::ScreamingSnake.field(name).replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_serde() {
        let v = "VeryTasty";
        let f = "very_tasty";
        let cases = [
            ("lowercase", "verytasty", "very_tasty"),
            ("UPPERCASE", "VERYTASTY", "VERY_TASTY"),
            ("PascalCase", "VeryTasty", "VeryTasty"),
            ("camelCase", "veryTasty", "veryTasty"),
            ("snake_case", "very_tasty", "very_tasty"),
            ("SCREAMING_SNAKE_CASE", "VERY_TASTY", "VERY_TASTY"),
            ("kebab-case", "very-tasty", "very-tasty"),
            ("SCREAMING-KEBAB-CASE", "VERY-TASTY", "VERY-TASTY"),
        ];
        for (name, variant, field) in cases {
            let c = Case::parse(name).unwrap();
            assert_eq!(
                (c.variant(v).as_str(), c.field(f).as_str()),
                (variant, field),
                "{name}"
            );
        }
    }
}
