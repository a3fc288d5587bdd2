//! The `%` statements: `%ignore`, `%import common...`, and the directives
//! that are named as unsupported. Separate from the definition parser
//! because an import resolves names against a built-in terminal library
//! (`common`, `python`) rather than parsing an expression; imports from
//! other grammar files are recorded here and read by [`super::imports`].

use super::ast::{IgnoreDef, ModuleImport, Node, TermBody, TermDef};
use super::lexer::{Tok, Token};
use super::libraries::library_terminals;
use super::options;
use super::parser::{alts_node, is_terminal_name, PResult, Parser};
use crate::error::DiagnosticKind;

impl Parser<'_, '_> {
    pub(super) fn statement(&mut self) -> PResult<()> {
        let t = self.advance();
        let Tok::Directive(d) = &t.tok else {
            return Err(());
        };
        let span = self.span_of(&t);
        match d.as_str() {
            "ignore" => {
                let start = self.cur().start;
                let alts = self.expansions(false)?;
                self.end_of_definition()?;
                let node = alts_node(alts.into_iter().map(|a| a.node).collect());
                if matches!(&node, Node::Seq(items) if items.is_empty()) {
                    self.error(
                        DiagnosticKind::Syntax,
                        span,
                        "expected a terminal name, a \"literal\" or a /regex/ after `%ignore`",
                    );
                    return Err(());
                }
                let span = self.src.span(start, self.prev_end());
                self.out.ignores.push(IgnoreDef { node, span });
                Ok(())
            }
            "import" => self.import(&t),
            "llguidance" => {
                let opts = self.cur();
                let Tok::Json(text) = opts.tok.clone() else {
                    return self.expected("a JSON object of options after `%llguidance`");
                };
                self.advance();
                let span = self.src.span(t.start, opts.end);
                let checked = serde_json::from_str::<serde_json::Value>(&text)
                    .map_err(|e| {
                        let m = format!("the options after `%llguidance` are not JSON: {e}");
                        (DiagnosticKind::Syntax, m)
                    })
                    .and_then(|v| options::check(&v));
                if let Err((kind, msg)) = checked {
                    self.error(kind, span, msg);
                    return Err(());
                }
                self.end_of_definition()
            }
            "declare" => {
                self.error(
                    DiagnosticKind::Unsupported,
                    span,
                    "`%declare` is not supported: every terminal needs a pattern \
                     (declared terminals come from a custom lexer or postlexer, e.g. Python's _INDENT/_DEDENT)",
                );
                Err(())
            }
            "override" | "extend" => {
                self.error(
                    DiagnosticKind::Unsupported,
                    span,
                    format!("`%{d}` is not supported: it only modifies definitions imported from other grammar files"),
                );
                Err(())
            }
            _ => {
                self.error(
                    DiagnosticKind::Syntax,
                    span,
                    format!("unknown directive `%{d}`: expected `%ignore` or `%import`"),
                );
                Err(())
            }
        }
    }

    fn import(&mut self, dir: &Token) -> PResult<()> {
        if *self.peek() == Tok::DotDot {
            let t = self.cur();
            self.error(
                DiagnosticKind::Unsupported,
                self.src.span(dir.start, t.end),
                "imports from a parent directory (`%import ..module`) are not supported: \
                 a relative import names a file beside this grammar (`%import .module.NAME`)",
            );
            return Err(());
        }
        let relative = *self.peek() == Tok::Dot;
        if relative {
            self.advance();
        }
        let mut path: Vec<(String, Token)> = Vec::new();
        loop {
            let t = self.cur();
            let Tok::Name(n) = t.tok.clone() else {
                return self.expected(if path.is_empty() {
                    "a module name after `%import` (e.g. `%import common.WS`)"
                } else {
                    "a name after `.` in the import path"
                });
            };
            self.advance();
            path.push((n, t));
            if *self.peek() == Tok::Dot {
                self.advance();
            } else {
                break;
            }
        }
        // (name, its token, the name it gets here)
        let mut items: Vec<(String, Token, String)> = Vec::new();
        let module: Vec<String>;
        if *self.peek() == Tok::LParen {
            self.advance();
            module = path.iter().map(|(n, _)| n.clone()).collect();
            loop {
                let t = self.cur();
                let Tok::Name(n) = t.tok.clone() else {
                    return self.expected("a name in the import list");
                };
                self.advance();
                items.push((n.clone(), t, n));
                match self.peek() {
                    Tok::Comma => {
                        self.advance();
                    }
                    Tok::RParen => {
                        self.advance();
                        break;
                    }
                    _ => return self.expected("`,` or `)` in the import list"),
                }
            }
        } else {
            if path.len() < 2 {
                let (n, t) = &path[0];
                let span = self.span_of(t);
                self.error(
                    DiagnosticKind::Syntax,
                    span,
                    format!("expected `{n}.NAME` or `{n} (NAME, ...)`: an import names what it takes from the module"),
                );
                return Err(());
            }
            let Some((name, name_tok)) = path.pop() else {
                return Err(());
            };
            module = path.iter().map(|(n, _)| n.clone()).collect();
            let mut local = name.clone();
            if *self.peek() == Tok::Arrow {
                self.advance();
                let t = self.cur();
                let Tok::Name(a) = t.tok.clone() else {
                    return self.expected("a name after `->`");
                };
                self.advance();
                local = a;
            }
            items.push((name, name_tok, local));
        }
        self.end_of_definition()?;
        let module_name = module.join(".");
        let library = library_terminals(&module_name).filter(|_| !relative);
        let Some(library) = library else {
            let t = &path
                .first()
                .map(|(_, t)| t.clone())
                .unwrap_or_else(|| dir.clone());
            let span = self.src.span(dir.start, t.end.max(self.prev_end()));
            let items = (items.into_iter())
                .map(|(name, tok, local)| (name, self.span_of(&tok), local))
                .collect();
            self.out.imports.push(ModuleImport {
                module: module_name,
                relative,
                items,
                span,
            });
            return Ok(());
        };
        for (name, tok, local) in items {
            let span = self.span_of(&tok);
            match library.get(&name) {
                Some(frag) => {
                    if !is_terminal_name(&local) {
                        self.error(
                            DiagnosticKind::Syntax,
                            span,
                            format!("cannot import terminal `{name}` as `{local}`: terminal names are uppercase"),
                        );
                        continue;
                    }
                    self.out.terms.push(TermDef {
                        name: local,
                        body: TermBody::Imported(frag.clone()),
                        span,
                        priority: 0,
                    });
                }
                None => {
                    let mut names: Vec<&str> = library
                        .keys()
                        .map(String::as_str)
                        .filter(|n| !n.starts_with('_'))
                        .collect();
                    names.sort_unstable();
                    self.error(
                        DiagnosticKind::Undefined,
                        span,
                        format!(
                            "`{module_name}` has no terminal `{name}`; it defines {}",
                            names.join(", ")
                        ),
                    );
                }
            }
        }
        Ok(())
    }
}
