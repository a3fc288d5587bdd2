//! The matcher: one per request, it follows the output token by token and
//! computes the exact set of tokens allowed next.
//!
//! Its state is a set of configurations, each a parser stack and the
//! contextual lexer's state for the pending lexeme in that stack's context.
//! An LL(1) grammar always has exactly one; a generalized grammar forks
//! where its table has a conflict, and a configuration dies when its
//! derivation cannot take the next byte (ARCHITECTURE.md, "Beyond LL(1)").
//! The stacks are `SharedStack`s: configurations that reach the same
//! lexer state and the same top of stack merge into one over the union of
//! their lower parts, so ambiguity that repeats (nested parentheses in
//! Java) grows the set linearly rather than exponentially.
//! A configuration's mask is the precomputed `within` set of its lexer
//! state plus the tokens that cross a lexeme boundary, for which the parser
//! is asked once per winning terminal (see [`crate::bind`]); the matcher's
//! mask is their union, computed for all configurations in one walk
//! (`mask`). The grammar was checked free of lexical hazards at
//! compile time, so "the lexer is alive and the parser took every terminal"
//! is exactly "some completion exists", per configuration. Under dynamic
//! lexing there are no hazards to check, and the mask has its own walk
//! (`dynamic`).

use std::fmt;
use std::sync::Arc;

use bitvec::prelude::*;

use crate::bind::{BoundGrammar, BudgetTables, CostTier, PendingCap, INF};
use crate::parser::{SharedStack, Stack, StackView};

mod dynamic;
mod forced;
mod heads;
mod hints;
mod logits;
mod mask;

pub use logits::apply_mask;

/// Why the matcher refused an operation. The state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchError {
    kind: MatchErrorKind,
    message: String,
}

/// The reason behind a [`MatchError`], for callers that react per case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MatchErrorKind {
    /// The id is not in the vocabulary.
    TokenOutOfRange,
    /// The grammar does not allow this token here.
    TokenNotAllowed,
    /// Rolled back more tokens than were accepted.
    RollbackTooFar,
    /// EOS was accepted already; nothing may follow.
    Finished,
    /// The token budget is below what the output still needs.
    BudgetTooSmall,
    /// A generalized grammar would need more live parser configurations
    /// than [`Limits::max_configurations`](crate::limits::Limits) allows.
    TooManyConfigurations,
    /// A lexeme cap names no terminal of the grammar, is below what a
    /// lexeme of it needs, or cannot be kept by this grammar's lexing.
    LexemeCap,
    /// The grammar is too large for budget tables
    /// ([`MAX_BUDGET_TABLE_BYTES`](crate::bind::MAX_BUDGET_TABLE_BYTES)):
    /// no budget or lexeme cap can be kept.
    BudgetUnavailable,
}

impl MatchError {
    /// Why the operation was refused; the [`Display`](fmt::Display)
    /// message adds the details (token, offset, limits).
    pub fn kind(&self) -> MatchErrorKind {
        self.kind
    }
}

/// One constructor per kind, so that each refusal names its case where it
/// is made and the messages with fixed wording are written once.
impl MatchError {
    fn new(kind: MatchErrorKind, message: String) -> MatchError {
        MatchError { kind, message }
    }

    fn token_out_of_range(token: u32, vocab_len: usize) -> MatchError {
        MatchError::new(
            MatchErrorKind::TokenOutOfRange,
            format!("token id {token} is out of range (vocabulary has {vocab_len} ids)"),
        )
    }

    fn token_not_allowed(message: String) -> MatchError {
        MatchError::new(MatchErrorKind::TokenNotAllowed, message)
    }

    fn rollback_too_far(steps: usize, accepted: usize) -> MatchError {
        MatchError::new(
            MatchErrorKind::RollbackTooFar,
            format!("cannot roll back {steps} tokens: only {accepted} were accepted"),
        )
    }

    fn finished(message: String) -> MatchError {
        MatchError::new(MatchErrorKind::Finished, message)
    }

    fn budget_too_small(budget: usize, need: usize) -> MatchError {
        MatchError::new(
            MatchErrorKind::BudgetTooSmall,
            format!("a budget of {budget} tokens is too small: the output needs at least {need}"),
        )
    }

    fn too_many_configurations(message: String) -> MatchError {
        MatchError::new(MatchErrorKind::TooManyConfigurations, message)
    }

    fn lexeme_cap(message: String) -> MatchError {
        MatchError::new(MatchErrorKind::LexemeCap, message)
    }

    fn budget_unavailable(why: crate::bind::BudgetUnavailable) -> MatchError {
        MatchError::new(MatchErrorKind::BudgetUnavailable, why.to_string())
    }
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MatchError {}

/// The state before one accepted token, linked to the one before it. The
/// list is persistent (shared between forks), so cloning a matcher does not
/// copy its history.
#[derive(Debug)]
struct Snapshot {
    /// Stacks, lexer states and held tokens of the configurations.
    configs: Vec<(SharedStack, u32, u32)>,
    fresh: bool,
    output_len: usize,
    /// Tokens accepted before this step (a byte run adds none).
    tokens_len: usize,
    prev: Option<Arc<Snapshot>>,
}

impl Drop for Snapshot {
    // Unlinks iteratively: a long history must not recurse once per token.
    fn drop(&mut self) {
        let mut next = self.prev.take();
        while let Some(node) = next {
            match Arc::try_unwrap(node) {
                Ok(mut s) => next = s.prev.take(),
                Err(_) => break,
            }
        }
    }
}

/// One derivation the matcher follows.
#[derive(Clone, Debug)]
struct Config {
    stack: SharedStack,
    /// Lexer state of the pending lexeme, in this stack's context.
    lexer: u32,
    /// With a budget: the budget cost vectors of `stack`'s top segment,
    /// kept up to date.
    costs: Vec<Vec<u32>>,
    /// With lexeme caps: the tokens that hold bytes of the pending lexeme.
    held: u32,
}

impl Config {
    /// The stack as a view, with its cost vectors when they are kept.
    fn view(&self) -> StackView<'_> {
        let costs = (self.costs.len() == self.stack.top.len()).then_some(&self.costs[..]);
        StackView::of(&self.stack, costs)
    }
}

/// Configurations after some bytes: stack, lexer state, the index of the
/// configuration they came from, and (with lexeme caps) the tokens holding
/// the pending lexeme once these bytes are a token.
type Runs = Vec<(SharedStack, u32, usize, u32)>;

/// Why bytes could not be followed.
enum RunError {
    Dead,
    TooMany(usize),
}

/// Follows one output. Cheap to clone (fork), rolls back by tokens.
#[derive(Clone, Debug)]
pub struct Matcher {
    bound: Arc<BoundGrammar>,
    /// Never empty; one for an LL(1) grammar.
    configs: smallvec::SmallVec<[Config; 1]>,
    /// No byte consumed yet (the empty lexeme has nothing to close).
    fresh: bool,
    output: Vec<u8>,
    tokens: Vec<u32>,
    history: Option<Arc<Snapshot>>,
    history_len: usize,
    finished: bool,
    /// Most tokens (EOS not counted) the output may take.
    budget: Option<usize>,
    /// Per terminal, the most tokens one of its lexemes may hold
    /// ([`INF`](crate::bind::INF): no cap); `None` without caps.
    caps: Option<Arc<[u32]>>,
    /// The budget tables the configurations' cost vectors are for: a
    /// fresh binding's upper bounds until a decision needs the exact
    /// tables (see [`CostTier`]).
    cost_tier: CostTier,
}

impl Matcher {
    /// A matcher at the start of an output (nothing accepted, no budget),
    /// with the lexeme caps the grammar sets itself (llguidance's
    /// `[max_tokens=N]`; see [`set_lexeme_cap`](Self::set_lexeme_cap),
    /// which also lifts them).
    pub fn new(bound: Arc<BoundGrammar>) -> Matcher {
        let stack = bound.grammar.parse.initial_stack();
        let lexer = bound.grammar.start_state(&stack);
        let stack = SharedStack::new(stack);
        // Shown keepable when the grammar was bound (`bind/grammar_caps.rs`):
        // every `BoundGrammar` is made by a binding that checks them.
        let caps = bound.grammar_caps().ok().flatten();
        let mut m = Matcher {
            bound,
            configs: smallvec::smallvec![Config {
                stack,
                lexer,
                costs: Vec::new(),
                held: 0,
            }],
            fresh: true,
            output: Vec::new(),
            tokens: Vec::new(),
            history: None,
            history_len: 0,
            budget: None,
            caps,
            finished: false,
            cost_tier: CostTier::Exact,
        };
        if m.caps.is_some() {
            m.compute_costs();
        }
        m
    }

    /// How many parser configurations the matcher follows now (always 1
    /// for an LL(1) grammar).
    pub fn configurations(&self) -> usize {
        self.configs.len()
    }

    /// The binding whose grammar and vocabulary this matcher follows.
    pub fn bound(&self) -> &Arc<BoundGrammar> {
        &self.bound
    }

    /// The bytes accepted so far. A special token the grammar names is
    /// there as its three symbol bytes (see
    /// [`SpecialToken`](crate::grammar::SpecialToken)); [`text`](Self::text)
    /// shows it by name.
    pub fn output(&self) -> &[u8] {
        &self.output
    }

    /// The output as text: UTF-8 decoded (an incomplete or invalid sequence
    /// replaced) and each special token the grammar names written as its
    /// name (`<|im_end|>`).
    pub fn text(&self) -> String {
        self.bound.vocab().render(&self.output)
    }

    /// The tokens accepted so far (EOS included once accepted).
    pub fn tokens(&self) -> &[u32] {
        &self.tokens
    }

    /// Whether EOS was accepted.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Whether the output is a complete sentence (EOS allowed now).
    pub fn is_complete(&self) -> bool {
        !self.finished && self.configs.iter().any(|c| self.config_complete(c))
    }

    fn config_complete(&self, c: &Config) -> bool {
        let g = &self.bound.grammar;
        if self.fresh {
            return g.parse.accepts_end_top_down(c.stack.top_down());
        }
        let mut complete = false;
        let caps = self.caps.as_deref();
        for w in g.lexeme_ends(c.lexer) {
            if caps.is_some_and(|caps| c.held > caps[w as usize]) {
                continue;
            }
            g.each_shift(StackView::of(&c.stack, None), w, |v| {
                complete = complete || g.parse.accepts_end_top_down(v.top_down());
            });
        }
        complete
    }

    /// A fresh mask of `width` bits (the model's logits width; ids past the
    /// vocabulary stay forbidden).
    pub fn compute_mask(&self, width: usize) -> BitVec<u64, Lsb0> {
        let mut mask = bitvec![u64, Lsb0; 0; width];
        self.fill_mask(&mut mask);
        mask
    }

    /// Sets exactly the allowed tokens in `mask`, whose length is the
    /// logits width (EOS included when complete).
    pub fn fill_mask(&self, mask: &mut BitVec<u64, Lsb0>) {
        if self.finished {
            mask.fill(false);
            return;
        }
        let vocab_len = self.bound.trie.vocab_len;
        if mask.len() >= vocab_len {
            self.fill_tokens(mask.as_raw_mut_slice());
        } else {
            let mut full = bitvec![u64, Lsb0; 0; vocab_len];
            self.fill_tokens(full.as_raw_mut_slice());
            let width = mask.len();
            mask.copy_from_bitslice(&full[..width]);
        }
        if self.is_complete() {
            for &e in self.bound.vocab.eos_ids() {
                if (e as usize) < mask.len() {
                    mask.set(e as usize, true);
                }
            }
        }
    }

    /// Sets forbidden logits to negative infinity.
    pub fn mask_logits(&self, logits: &mut [f32]) {
        apply_mask(&self.compute_mask(logits.len()), logits);
    }
}

impl Matcher {
    /// Runs `bytes` from the current configurations: those that take every
    /// byte (deduplicated), each with the index of the one it came from.
    fn run_bytes(&self, bytes: &[u8]) -> Result<Runs, RunError> {
        let g = &self.bound.grammar;
        let max = g.max_configurations();
        // Under caps, a run counts the tokens holding its pending lexeme:
        // these bytes are one more when they extend it, one when they start
        // the next; a lexeme that ends past its cap ends its run.
        let caps = self.caps.as_deref();
        let mut runs: Runs = (self.configs.iter().enumerate())
            .map(|(i, c)| (c.stack.clone(), c.lexer, i, c.held))
            .collect();
        let mut fresh = self.fresh;
        for (k, &byte) in bytes.iter().enumerate() {
            let mut next: Runs = Vec::with_capacity(runs.len());
            for (stack, q, from, held) in runs {
                let held = match caps {
                    None => 0,
                    Some(_) if g.lexer.next(q, byte) != crate::lexer::DEAD => {
                        held + u32::from(k == 0)
                    }
                    Some(caps) => match g.lexer.winner(q) {
                        Some(w) if held > caps[w as usize] => continue,
                        _ => 1,
                    },
                };
                g.step(stack, q, byte, fresh, |stack, ns| {
                    next.push((stack, ns, from, held))
                });
            }
            if next.len() > 1 {
                merge_runs(&mut next);
            }
            // The cap applies after the token (derivations may die by its
            // end); inside it, a wider bound keeps the work finite.
            if next.len() > max.saturating_mul(16) {
                return Err(RunError::TooMany(next.len()));
            }
            runs = next;
            fresh = false;
        }
        runs.retain(|(stack, q, _, _)| {
            mask::exact_candidates(g, &StackView::of(stack, None))
                .is_none_or(|e| mask::viable(g, *q, &e))
        });
        if runs.is_empty() {
            return Err(RunError::Dead);
        }
        if runs.len() > max {
            return Err(RunError::TooMany(runs.len()));
        }
        Ok(runs)
    }

    /// Accepts `token`. EOS is accepted only when the output is complete.
    pub fn advance(&mut self, token: u32) -> Result<(), MatchError> {
        if self.finished {
            return Err(MatchError::finished(format!(
                "token {token} after end of sequence"
            )));
        }
        let bound = Arc::clone(&self.bound);
        let vocab = &bound.vocab;
        let bytes = match vocab.token_bytes(token) {
            Ok(b) => b,
            Err(_) => return Err(MatchError::token_out_of_range(token, vocab.len())),
        };
        if vocab.is_eos(token) {
            if !self.is_complete() {
                return Err(
                    self.not_allowed(token, "end of sequence before the output is complete")
                );
            }
            self.push_history();
            self.tokens.push(token);
            self.finished = true;
            return Ok(());
        }
        let normal = matches!(vocab.kind(token), Ok(crate::vocab::TokenKind::Normal));
        if !normal || bytes.is_empty() {
            return Err(self.not_allowed(token, "special tokens never match grammar text"));
        }
        if let Some(n) = self.budget.filter(|&n| self.tokens.len() >= n) {
            return Err(self.not_allowed(token, &format!("the budget of {n} tokens is spent")));
        }
        self.feed(bytes, Some(token))
    }

    /// Appends `bytes` to the output as if a token had spelled them, but
    /// records no token: text fed from outside the model (a prefix the
    /// caller forces, jump-forward bytes, a document checked against the
    /// grammar), the bytes-level twin of [`advance`](Self::advance). Under
    /// a budget the bytes cost no token, and a derivation that could then
    /// not finish within it is dropped; under lexeme caps, which count
    /// tokens, it is refused. [`rollback`](Self::rollback) undoes it as
    /// one step. Errors leave the matcher unchanged.
    pub fn advance_bytes(&mut self, bytes: &[u8]) -> Result<(), MatchError> {
        let refuse = |case: fn(String) -> MatchError, why: &str| {
            case(format!(
                "{} bytes not allowed after {} bytes: {why}",
                bytes.len(),
                self.output.len()
            ))
        };
        if self.finished {
            return Err(refuse(MatchError::finished, "the output has ended"));
        }
        if self.caps.is_some() {
            return Err(refuse(
                MatchError::lexeme_cap,
                "lexeme caps count tokens, and bytes fed directly are none (lift them with \
                 `set_lexeme_cap(terminal, None)`; a grammar's `[max_tokens=N]` sets them)",
            ));
        }
        if bytes.is_empty() {
            return Ok(());
        }
        self.feed(bytes, None)
    }

    /// Runs `bytes` (token `token`'s, or a byte run's) and, if some
    /// configuration takes them all, makes them the next step.
    fn feed(&mut self, bytes: &[u8], token: Option<u32>) -> Result<(), MatchError> {
        let what = match token {
            Some(t) => format!("token {t}"),
            None => format!("{} bytes", bytes.len()),
        };
        let runs = match self.run_bytes(bytes) {
            Ok(runs) => runs,
            Err(RunError::Dead) => {
                return Err(self.refused(bytes, &what, "the grammar does not allow it here"))
            }
            Err(RunError::TooMany(n)) => {
                return Err(MatchError::too_many_configurations(format!(
                        "{what} would leave {n} parser configurations alive, more than the \
                         limit of {} (the grammar is ambiguous here; raise Limits::max_configurations \
                         or make the grammar less ambiguous)",
                        self.bound.grammar.max_configurations()
                    )))
            }
        };
        let mut configs = smallvec::SmallVec::with_capacity(runs.len());
        let tables = self.token_limit().map(|_| self.cost_tables());
        // The parents' vectors are for other tables once the exact ones
        // replace the bounds.
        let same_tier = tables.is_some_and(|t| t.tier() == self.cost_tier);
        for (stack, lexer, from, held) in runs {
            let mut costs = Vec::new();
            if let (Some(limit), Some(tables)) = (self.token_limit(), tables) {
                let b = &self.bound;
                // A merged configuration has no one parent.
                let parent = self.configs.get(from).filter(|_| same_tier);
                costs = parent.map(|p| p.costs.clone()).unwrap_or_default();
                tables.update_stack_costs(
                    &b.grammar.parse,
                    &mut costs,
                    parent.map(|p| &p.stack),
                    &stack,
                );
                let view = StackView::of(&stack, Some(&costs));
                // A derivation that cannot finish within the budget and
                // the caps is dropped.
                if !fits_by_tier(b, tables, &view, lexer, self.cap(held), limit) {
                    continue;
                }
            }
            configs.push(Config {
                stack,
                lexer,
                costs,
                held,
            });
        }
        if configs.is_empty() {
            let why = match self.budget {
                Some(n) => format!(
                    "the output could not be completed within the budget of {n} tokens{}",
                    if self.caps.is_some() {
                        " and the lexeme caps"
                    } else {
                        ""
                    }
                ),
                None => "a lexeme would pass its cap before it could end".to_string(),
            };
            return Err(self.refused(bytes, &what, &why));
        }
        let tier = tables.map_or(self.cost_tier, BudgetTables::tier);
        self.push_history();
        self.configs = configs;
        self.cost_tier = tier;
        self.output.extend_from_slice(bytes);
        self.fresh = false;
        self.tokens.extend(token);
        Ok(())
    }

    fn not_allowed(&self, token: u32, why: &str) -> MatchError {
        let text = self.bound.vocab.token_bytes(token).unwrap_or_default();
        self.refused(text, &format!("token {token}"), why)
    }

    /// `what` (spelling `bytes`) refused after the output so far.
    fn refused(&self, bytes: &[u8], what: &str, why: &str) -> MatchError {
        MatchError::token_not_allowed(format!(
            "{what} ({:?}) not allowed after {} bytes: {why}",
            String::from_utf8_lossy(bytes),
            self.output.len()
        ))
    }

    fn push_history(&mut self) {
        self.history = Some(Arc::new(Snapshot {
            configs: (self.configs.iter())
                .map(|c| (c.stack.clone(), c.lexer, c.held))
                .collect(),
            fresh: self.fresh,
            output_len: self.output.len(),
            tokens_len: self.tokens.len(),
            prev: self.history.take(),
        }));
        self.history_len += 1;
    }

    /// Undoes the last `n` steps: accepted tokens, and byte runs fed by
    /// [`advance_bytes`](Self::advance_bytes) (one step each).
    pub fn rollback(&mut self, n: usize) -> Result<(), MatchError> {
        if n > self.history_len {
            return Err(MatchError::rollback_too_far(n, self.history_len));
        }
        if n == 0 {
            return Ok(());
        }
        let mut node = self.history.clone().expect("n <= history_len");
        for _ in 1..n {
            node = node.prev.clone().expect("n <= history_len");
        }
        self.configs = (node.configs.iter())
            .map(|(stack, lexer, held)| Config {
                stack: stack.clone(),
                lexer: *lexer,
                costs: Vec::new(),
                held: *held,
            })
            .collect();
        self.fresh = node.fresh;
        self.output.truncate(node.output_len);
        self.tokens.truncate(node.tokens_len);
        self.history = node.prev.clone();
        self.history_len -= n;
        self.finished = false;
        if self.token_limit().is_some() {
            self.compute_costs();
        }
        Ok(())
    }

    /// Recomputes every configuration's budget cost vectors (drops them
    /// when nothing plans ahead).
    fn compute_costs(&mut self) {
        if self.token_limit().is_none() {
            for c in &mut self.configs {
                c.costs = Vec::new();
            }
            return;
        }
        let b = self.bound.clone();
        let tables = Self::tables_for(&b, self.caps.is_some());
        for c in &mut self.configs {
            c.costs = tables.stack_costs(&b.grammar.parse, &c.stack);
        }
        self.cost_tier = tables.tier();
    }

    /// The tables budgeted decisions start from: the exact ones once they
    /// are built or under lexeme caps (whose checks need each lexeme's
    /// exact cost), else the bounds, which read no token tables.
    fn cost_tables(&self) -> &BudgetTables {
        Self::tables_for(&self.bound, self.caps.is_some())
    }

    fn tables_for(b: &BoundGrammar, caps: bool) -> &BudgetTables {
        match (b.budget_if_built(), caps) {
            (Some(exact), _) => exact,
            (None, true) => b.budget(),
            (None, false) => b.budget_upper(),
        }
    }

    /// What determines the future of this matcher (parser stacks, lexer
    /// states, whether any byte was read), for searches over outputs.
    #[doc(hidden)]
    pub fn state_key(&self) -> (Vec<(Vec<u32>, u32)>, bool, bool) {
        let mut configs: Vec<_> = (self.configs.iter())
            .flat_map(|c| c.stack.expand().into_iter().map(|s| (s, c.lexer)))
            .collect();
        configs.sort_unstable();
        configs.dedup();
        (configs, self.fresh, self.finished)
    }

    /// The fewest tokens that complete the output, by the budget's plans
    /// (an upper bound on the true fewest; 0 when complete;
    /// [`INF`](crate::bind::INF) when no plan does, or when the grammar is
    /// too large for budget tables).
    pub fn min_tokens_to_complete(&self) -> usize {
        if self.finished || self.is_complete() {
            return 0;
        }
        let b = &self.bound;
        if b.budget_available().is_err() {
            return crate::bind::INF as usize;
        }
        // Each configuration is a real plan: the cheapest counts.
        (self.configs.iter())
            .map(|c| {
                let view = match self.cost_tier {
                    CostTier::Exact => c.view(),
                    CostTier::Upper => c.view().without_costs(),
                };
                b.budget()
                    .estimate_capped(b, &view, c.lexer, self.cap(c.held))
            })
            .min()
            .unwrap_or(crate::bind::INF) as usize
    }

    /// The pending lexeme's caps for a configuration holding `held` tokens.
    fn cap(&self, held: u32) -> Option<crate::bind::PendingCap<'_>> {
        (self.caps.as_deref()).map(|limits| crate::bind::PendingCap { limits, held })
    }

    /// The most tokens a completion may take after the next token, when a
    /// budget or a lexeme cap makes masks plan ahead (a cap alone: any
    /// plan that keeps the caps).
    fn token_limit(&self) -> Option<u32> {
        match (self.budget, &self.caps) {
            (Some(n), _) => Some(n.saturating_sub(self.tokens.len() + 1) as u32),
            (None, Some(_)) => Some(crate::bind::INF - 1),
            (None, None) => None,
        }
    }

    /// Caps every lexeme of `terminal` at `max_tokens` tokens, counting
    /// each token that holds at least one of its bytes (`None` lifts the
    /// cap). Masks then allow only tokens after which the lexeme can still
    /// end within its cap, so a capped segment (a model's reasoning up to
    /// `</think>`) always closes in time and generation goes on past it.
    ///
    /// Fails, with [`MatchErrorKind::LexemeCap`], when the grammar has no
    /// such terminal, when `max_tokens` is below the tokens a lexeme of it
    /// may need after the lexemes before it, under dynamic lexing, when the
    /// first cap comes after the first token (tokens are counted from the
    /// first cap on), or when the output so far can no longer keep it.
    pub fn set_lexeme_cap(
        &mut self,
        terminal: &str,
        max_tokens: Option<usize>,
    ) -> Result<(), MatchError> {
        let g = &self.bound.grammar;
        let error = MatchError::lexeme_cap;
        let Some(w) = (g.grammar.terminals.iter()).position(|t| t.name == terminal) else {
            return Err(error(format!("the grammar has no terminal {terminal}")));
        };
        if g.lexing() == crate::compiled::Lexing::Dynamic {
            return Err(error(format!(
                "cannot cap {terminal}: under dynamic lexing a lexeme's end is not one place"
            )));
        }
        if let (Some(_), Err(why)) = (max_tokens, self.bound.budget_available()) {
            return Err(MatchError::budget_unavailable(why));
        }
        // Counting starts with the first cap.
        if self.caps.is_none() && !self.tokens.is_empty() {
            return Err(error(format!(
                "cannot cap {terminal} after {} tokens: set the first cap before the first token",
                self.tokens.len()
            )));
        }
        let inf = crate::bind::INF;
        let mut caps: Vec<u32> = match &self.caps {
            Some(c) => c.to_vec(),
            None => vec![inf; g.grammar.terminals.len()],
        };
        caps[w] = match max_tokens {
            Some(k) => {
                let need = self.bound.budget().lexeme_most(w as u32);
                if (k as u64) < u64::from(need) {
                    return Err(error(format!(
                        "a cap of {k} tokens on {terminal} is too small: a lexeme of it may \
                         need {need} tokens"
                    )));
                }
                k.min(inf as usize - 1) as u32
            }
            None => inf,
        };
        let caps: Option<Arc<[u32]>> = caps.iter().any(|&c| c < inf).then(|| caps.into());
        let saved = std::mem::replace(&mut self.caps, caps);
        self.compute_costs();
        if !self.finished && !self.is_complete() && self.min_tokens_to_complete() >= inf as usize {
            self.caps = saved;
            self.compute_costs();
            return Err(error(format!(
                "the output so far cannot keep a cap of {} tokens on {terminal}",
                max_tokens.unwrap_or(0)
            )));
        }
        Ok(())
    }

    /// The token budget: at most `n` tokens (EOS not counted) in all,
    /// complete at the end. Fails if the output can no longer fit.
    pub fn set_budget(&mut self, n: Option<usize>) -> Result<(), MatchError> {
        if let (Some(_), Err(why)) = (n, self.bound.budget_available()) {
            return Err(MatchError::budget_unavailable(why));
        }
        if let Some(n) = n {
            // EOS, once taken, is in `tokens` but not in the budget.
            let used = self.tokens.len() - usize::from(self.finished);
            // The bounds show most budgets large enough without the exact
            // tables, whose searches read token tables.
            let roomy = self.caps.is_none()
                && self.bound.budget_if_built().is_none()
                && n.checked_sub(used)
                    .is_some_and(|left| self.fits_by_bounds(left.min(INF as usize - 1) as u32));
            if !roomy {
                let need = used + self.min_tokens_to_complete();
                if n < need {
                    return Err(MatchError::budget_too_small(n, need));
                }
            }
        }
        self.budget = n;
        self.compute_costs();
        Ok(())
    }

    /// Whether some configuration completes within `left` tokens by the
    /// upper-bound tables: if so, the exact estimate does too.
    fn fits_by_bounds(&self, left: u32) -> bool {
        if self.finished || self.is_complete() {
            return true;
        }
        let b = &self.bound;
        let upper = b.budget_upper();
        (self.configs.iter()).any(|c| {
            let view = StackView::of(&c.stack, None);
            upper.fits_by_bounds(b, c.lexer, None, left, |w| upper.cost_after(b, &view, w))
        })
    }

    /// [`set_budget`](Self::set_budget) for a builder-style call.
    pub fn with_budget(mut self, n: usize) -> Result<Matcher, MatchError> {
        self.set_budget(Some(n))?;
        Ok(self)
    }

    /// The token budget in force (EOS not counted), if any.
    pub fn budget(&self) -> Option<usize> {
        self.budget
    }

    /// Whether appending `bytes` keeps the output a valid prefix.
    pub fn accepts_bytes(&self, bytes: &[u8]) -> bool {
        !self.finished && self.run_bytes(bytes).is_ok()
    }
}

/// Whether a configuration in lexer state `q` with parser `view` (whose
/// cost vectors are `tables`') can finish within `limit` tokens: by the
/// bounds when they show it, else by the exact tables.
fn fits_by_tier(
    b: &BoundGrammar,
    tables: &BudgetTables,
    view: &StackView,
    q: u32,
    cap: Option<PendingCap>,
    limit: u32,
) -> bool {
    match tables.tier() {
        CostTier::Exact => tables.fits(b, view, q, cap, limit),
        CostTier::Upper => {
            tables.fits_by_bounds(b, q, cap, limit, |w| tables.cost_after(b, view, w))
                || b.budget().fits(b, &view.without_costs(), q, cap, limit)
        }
    }
}

/// Merges configurations that agree on their lexer state and the top
/// segment of their stacks (see [`SharedStack::merge`]); an exact repeat
/// keeps the first's origin, a merged one has none (`usize::MAX`).
fn merge_runs(runs: &mut Runs) {
    SharedStack::merge_in_place(
        runs,
        |(s, q, _, held)| ((*q, *held), s),
        |(s, _, from, _), below| {
            s.below = Some(below);
            *from = usize::MAX;
        },
    );
}
