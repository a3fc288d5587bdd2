//! The XML argument styles a `json_schema` format names, as read from the
//! tag, and the closing tag of each; how each writes its arguments is
//! `xml.rs`'s.

/// The XML styles: how an argument is opened and closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum XmlStyle {
    /// `<parameter=NAME>VALUE</parameter>`.
    Qwen,
    /// `<parameter name="NAME">VALUE</parameter>`.
    Minimax,
    /// `<arg_key>NAME</arg_key>`, whitespace, `<arg_value>VALUE</arg_value>`.
    Glm,
    /// `<｜DSML｜parameter name="NAME" string="true">VALUE</｜DSML｜parameter>`
    /// for a raw string, `string="false"` for a JSON value.
    Deepseek,
    /// As [`Deepseek`](XmlStyle::Deepseek), the element named
    /// `｜DSML｜ parameter` (DeepSeek-V4.1).
    DeepseekV41,
    /// `<cofl:value name="NAME" type="raw">VALUE</cofl:value>` for a raw
    /// string, `type="json"` for a JSON scalar (Cohere). Its `dict` and
    /// `list` values (nested elements) are not read yet: objects and
    /// arrays are refused.
    Cohere,
    /// `]<]minimax[>[<NAME>VALUE]<]minimax[>[</NAME>` (MiniMax M3): raw
    /// strings stop before the namespace marker, other values are JSON
    /// with no whitespace around them. Nested objects and arrays (which
    /// it writes as nested elements) are refused.
    MinimaxM3,
}

/// MiniMax M3's namespace marker, which raw strings may not contain.
pub(crate) const M3: &str = "]<]minimax[>[";

impl XmlStyle {
    /// The closing tag every raw value stops before.
    pub(crate) fn close(self) -> &'static str {
        match self {
            XmlStyle::Qwen | XmlStyle::Minimax => "</parameter>",
            XmlStyle::Glm => "</arg_value>",
            XmlStyle::Deepseek => "</\u{ff5c}DSML\u{ff5c}parameter>",
            XmlStyle::DeepseekV41 => "</\u{ff5c}DSML\u{ff5c} parameter>",
            XmlStyle::Cohere => "</cofl:value>",
            XmlStyle::MinimaxM3 => M3,
        }
    }
}
