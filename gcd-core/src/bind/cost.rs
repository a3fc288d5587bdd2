//! Token counts as the budget adds them: [`INF`] for "no plan", sums
//! that stay at it (shared by the budget tables and the in-lexeme cost
//! searches, so neither imports the other for it).

/// An unreachable cost; sums of a few stay far from overflow.
pub const INF: u32 = u32::MAX / 8;

/// `a + b`, or [`INF`] when either is.
pub(crate) fn add(a: u32, b: u32) -> u32 {
    a.saturating_add(b).min(INF)
}
