//! A client of `structural_tag_oracle.py`: XGrammar 0.2.9 in a Python
//! process, asked one JSON line at a time. Shared by the structural tag
//! oracle and the family tests (`#[path]` from each test file).
//!
//! Without XGrammar, [`XGrammar::start`] returns `None` with a message and
//! the tests skip, except under CI (`CI` set). `GCD_XGRAMMAR_PYTHON` names
//! the Python to run (default `python3`).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

pub struct XGrammar {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

fn python() -> String {
    std::env::var("GCD_XGRAMMAR_PYTHON").unwrap_or_else(|_| "python3".into())
}

impl XGrammar {
    pub fn start() -> Option<XGrammar> {
        let has = Command::new(python())
            .args([
                "-c",
                "import importlib.util, sys; sys.exit(importlib.util.find_spec('xgrammar') is None)",
            ])
            .status()
            .is_ok_and(|s| s.success());
        if !has {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run the XGrammar oracle: `pip install --no-deps xgrammar ...` (see .ci/run)"
            );
            eprintln!("SKIP: python3 with xgrammar not found (see this file's docs)");
            return None;
        }
        // From gcd-schema's tests, or the facade crate's (the workspace root).
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let script = ["tests/oracle", "gcd-schema/tests/oracle"]
            .iter()
            .map(|d| root.join(d).join("structural_tag_oracle.py"))
            .find(|p| p.exists())
            .expect("structural_tag_oracle.py beside this client");
        let mut child = Command::new(python())
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Some(XGrammar {
            child,
            stdin,
            stdout,
        })
    }

    pub fn ask(&mut self, request: &Value) -> Value {
        writeln!(self.stdin, "{request}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("oracle said {line:?}: {e}"))
    }

    /// XGrammar's verdict on each string, or why it refuses the tag.
    pub fn verdicts(&mut self, tag: &Value, strings: &[Vec<u8>]) -> Result<Vec<bool>, String> {
        let hex: Vec<String> = (strings.iter())
            .map(|s| s.iter().map(|b| format!("{b:02x}")).collect())
            .collect();
        let answer = self.ask(&json!({ "tag": tag, "strings": hex }));
        if let Some(e) = answer["error"].as_str() {
            return Err(e.to_string());
        }
        let verdicts: Vec<bool> = serde_json::from_value(answer["verdicts"].clone()).unwrap();
        assert_eq!(verdicts.len(), strings.len());
        Ok(verdicts)
    }

    /// The tags XGrammar writes for its families, labelled.
    pub fn family_tags(&mut self, spec: Value) -> Vec<(String, Value)> {
        let answer = self.ask(&json!({ "families": spec }));
        serde_json::from_value(answer["tags"].clone()).unwrap()
    }
}

impl Drop for XGrammar {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
