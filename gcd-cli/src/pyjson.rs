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
}
