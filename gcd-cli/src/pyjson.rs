//! JSON text in the layout benchmarks expect.
//!
//! MaskBench serializes instances as Python's `json.dumps(data,
//! ensure_ascii=False)` does: `", "` between items, `": "` after keys,
//! non-ASCII characters as they are. serde_json's compact output differs
//! only in those separators, so a formatter that adds the spaces is enough.

use serde_json::ser::Formatter;
use std::io;

/// serde_json formatter with Python's default separators.
#[derive(Clone, Copy, Debug, Default)]
pub struct PythonFormatter;

impl Formatter for PythonFormatter {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

/// JSON text laid out as [`to_python_json`] lays out its value, with every
/// number kept as written: a `Value` holds an integer past 2^64 (or 2^53
/// precision) as an `f64`, which serde_json then writes as `6.75e37`, not
/// the digits the document had. Strings are read and written again (as
/// Python would re-escape them); `None` if `raw` is not one JSON value.
pub fn python_layout(raw: &str) -> Option<String> {
    let b = raw.as_bytes();
    let mut out = String::with_capacity(raw.len() + raw.len() / 8);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b',' => {
                out.push_str(", ");
                i += 1;
            }
            b':' => {
                out.push_str(": ");
                i += 1;
            }
            b'{' | b'}' | b'[' | b']' => {
                out.push(b[i] as char);
                i += 1;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let s: String = serde_json::from_str(raw.get(i..=j)?).ok()?;
                out.push_str(&serde_json::to_string(&s).ok()?);
                i = j + 1;
            }
            _ => {
                // A number or a literal: as written, up to the next delimiter.
                let j = (i..b.len())
                    .find(|&j| b",:]} \t\n\r".contains(&b[j]))
                    .unwrap_or(b.len());
                out.push_str(&raw[i..j]);
                i = j;
            }
        }
    }
    // The layout must say what the value says.
    let (a, b): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(raw).ok()?,
        serde_json::from_str(&out).ok()?,
    );
    (a == b).then_some(out)
}

/// `json.dumps(value, ensure_ascii=False)`.
pub fn to_python_json(value: &serde_json::Value) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, PythonFormatter);
    serde::Serialize::serialize(value, &mut ser)
        .expect("serializing a Value to memory cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

#[cfg(test)]
mod tests {
    #[test]
    fn python_separators() {
        let v: serde_json::Value =
            serde_json::from_str(r#"{"b": [1, 2, {"x": "é"}], "a": null}"#).unwrap();
        assert_eq!(
            super::to_python_json(&v),
            r#"{"b": [1, 2, {"x": "é"}], "a": null}"#
        );
    }

    #[test]
    fn python_layout_keeps_numbers_as_written() {
        let raw = "{\"id\" :67529227447270605635015986019561131887,\n \"x\": [1.50, -2e3, \"a\\u00e9\\\"\", true]}";
        assert_eq!(
            super::python_layout(raw).unwrap(),
            r#"{"id": 67529227447270605635015986019561131887, "x": [1.50, -2e3, "aé\"", true]}"#
        );
        // Where no big number is involved, the layout is to_python_json's.
        let raw = r#"{"b":[1,2,{"x":"é\n"}],"a":null, "c": 0.5}"#;
        let v: serde_json::Value = serde_json::from_str(raw).unwrap();
        assert_eq!(
            super::python_layout(raw).unwrap(),
            super::to_python_json(&v)
        );
        assert_eq!(super::python_layout("[1,"), None);
    }
}
