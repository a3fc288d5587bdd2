//! Locating ../shared/data and reading the JSON corpora from it.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/data` from the workspace root (or `$GCD_SHARED_DATA`), or
/// `None` (tests then skip).
pub use gcd_core::shared_data::root as shared_data;

/// A JSON document of a corpus, with where it came from.
pub struct Doc {
    pub origin: String,
    pub value: serde_json::Value,
}

/// JSON documents from the shared corpora: the JSON-Schema-Test-Suite
/// instances and schemas, every `stride`-th MaskBench file's test
/// instances and schema, and JSON-Mode-Eval's schemas and completions.
pub fn json_documents(stride: usize) -> Vec<Doc> {
    let Some(root) = shared_data() else {
        return Vec::new();
    };
    let mut docs = Vec::new();
    for draft in ["draft2020-12", "draft7"] {
        let dir = root.join("json-schema-test-suite/tests").join(draft);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for f in files
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "json"))
        {
            let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
            for (gi, group) in v.as_array().unwrap().iter().enumerate() {
                docs.push(Doc {
                    origin: format!("{}#{gi}/schema", f.display()),
                    value: group["schema"].clone(),
                });
                for (ti, t) in group["tests"].as_array().unwrap().iter().enumerate() {
                    docs.push(Doc {
                        origin: format!("{}#{gi}/{ti}", f.display()),
                        value: t["data"].clone(),
                    });
                }
            }
        }
    }
    let mb = root.join("maskbench");
    let mut files: Vec<_> = std::fs::read_dir(&mb)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for f in files.into_iter().step_by(stride.max(1)) {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&std::fs::read(&f).unwrap()) else {
            continue;
        };
        docs.push(Doc {
            origin: format!("{}/schema", f.display()),
            value: v["schema"].clone(),
        });
        if let Some(tests) = v["tests"].as_array() {
            for (ti, t) in tests.iter().enumerate() {
                docs.push(Doc {
                    origin: format!("{}#{ti}", f.display()),
                    value: t["data"].clone(),
                });
            }
        }
    }
    let jme = root.join("json-mode-eval/json-mode-eval.jsonl");
    for (i, line) in std::fs::read_to_string(jme).unwrap().lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        docs.push(Doc {
            origin: format!("json-mode-eval#{i}/schema"),
            value: v["schema"].clone(),
        });
        docs.push(Doc {
            origin: format!("json-mode-eval#{i}/completion"),
            value: v["completion"].clone(),
        });
    }
    docs
}

/// Every `.lark` file below `dir`, in sorted order, appended to `out`.
pub fn lark_files(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            lark_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "lark") {
            out.push(p);
        }
    }
}

/// Lark files of the shared data whose callers name their start rule
/// (Lark's `start=`): upstream examples without a rule named `start`.
pub const LARK_START_RULES: &[(&str, &str)] = &[
    ("advanced-qscintilla_json--grammar.lark", "anons"),
    ("advanced-tree_forest_transformer--grammar.lark", "sentence"),
    ("fruitflies--grammar.lark", "sentence"),
];

/// A Lark file's grammar, from the start rule its callers give.
pub fn parse_lark_file(
    path: &std::path::Path,
    text: &str,
) -> Result<gcd_core::grammar::Grammar, gcd_core::GrammarError> {
    let mut builder = gcd_core::lark::parse(text)?;
    if let Some((_, start)) = LARK_START_RULES.iter().find(|(f, _)| path.ends_with(f)) {
        builder.start(start);
    }
    builder.build()
}
