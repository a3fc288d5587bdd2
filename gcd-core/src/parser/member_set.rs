//! Member sets as the parser runs them: the flattened tables of a set, the
//! used-member words that ride on the stack, and how the budget finishes a
//! partly written set.

use super::{words_for, DATA_BIT, NT_BIT, PER_WORD};

/// Which of a member set's rules a nonterminal is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SetRole {
    /// Before the first member: always with nothing used, so no data.
    List,
    /// After a member (data below).
    More,
    /// After a separator (data below).
    Next,
}

/// A member set, flattened for the parser.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SetTables {
    pub list: u32,
    pub more: u32,
    pub next: u32,
    /// Members (encoded nonterminals), in declaration order.
    pub members: Vec<u32>,
    /// Required members as data-word bits.
    pub required: Vec<u32>,
    pub repeatable: Vec<u32>,
    pub separator: u32,
    pub nonempty: bool,
}

/// The set of members used so far, one entry per data word.
pub type Used = smallvec::SmallVec<[u32; 2]>;

impl SetTables {
    /// Data words under `more` and `next`.
    pub fn words(&self) -> usize {
        words_for(self.members.len())
    }

    pub fn is_used(used: &[u32], k: usize) -> bool {
        used[k / PER_WORD] >> (k % PER_WORD) & 1 == 1
    }

    pub(super) fn with(used: &[u32], k: usize) -> Used {
        let mut u = Used::from_slice(used);
        u[k / PER_WORD] |= 1 << (k % PER_WORD);
        u
    }

    /// Every required member is used.
    pub fn required_done(&self, used: &[u32]) -> bool {
        self.required.iter().zip(used).all(|(r, u)| r & !u == 0)
    }

    /// Some member may still come.
    pub fn has_free(&self, used: &[u32]) -> bool {
        !self.repeatable.is_empty() || (0..self.members.len()).any(|k| !Self::is_used(used, k))
    }

    /// The list may end before any member.
    pub fn may_be_empty(&self) -> bool {
        !self.nonempty && self.required.iter().all(|&r| r == 0)
    }

    /// Members that may come next, given `used` (each `(member, index)`,
    /// index `None` for repeatable ones).
    pub fn free<'a>(&'a self, used: &'a [u32]) -> impl Iterator<Item = (u32, Option<usize>)> + 'a {
        (self.members.iter().enumerate())
            .filter(move |(k, _)| !Self::is_used(used, *k))
            .map(|(k, &m)| (m, Some(k)))
            .chain(self.repeatable.iter().map(|&m| (m, None)))
    }

    /// Required members not used yet, in declaration order.
    pub fn missing<'a>(&'a self, used: &'a [u32]) -> impl Iterator<Item = u32> + 'a {
        (self.members.iter().enumerate())
            .filter(move |(k, _)| Self::is_used(&self.required, *k) && !Self::is_used(used, *k))
            .map(|(_, &m)| m)
    }

    /// Stack words for `role` over `used`, ready to push (top last).
    pub(super) fn push_words(&self, role_nt: u32, used: &[u32]) -> Used {
        let mut w: Used = used.iter().rev().map(|&u| u | DATA_BIT).collect();
        w.push(role_nt | NT_BIT);
        w
    }
}

/// A member set's rule read off a stack: set, role, used members.
pub struct SetState<'a> {
    pub set: &'a SetTables,
    pub role: SetRole,
    pub used: Used,
}

/// How the token budget finishes a member set: its missing required
/// members in declaration order, or, when one more member is needed and
/// none is required, the cheapest of those that may come.
pub enum SetPlan {
    /// These symbols (encoded, members and separators) in order.
    Sequence(Vec<u32>),
    /// Any one of these members.
    AnyOf(Vec<u32>),
}

impl SetState<'_> {
    pub fn plan(&self) -> SetPlan {
        let set = self.set;
        let one_more = match self.role {
            SetRole::More => false,
            SetRole::List => set.nonempty,
            SetRole::Next => true,
        };
        let mut missing = set.missing(&self.used).peekable();
        if missing.peek().is_none() && one_more {
            return SetPlan::AnyOf(set.free(&self.used).map(|(m, _)| m).collect());
        }
        let mut plan = Vec::new();
        for (i, m) in missing.enumerate() {
            if i > 0 || self.role == SetRole::More {
                plan.push(set.separator);
            }
            plan.push(m);
        }
        SetPlan::Sequence(plan)
    }
}
