//! The XML argument styles a `json_schema` format names, as read from the
//! tag; how each writes its arguments is `xml.rs`'s.

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
