//! Parser stacks: the plain `Vec` and a view that shares its lower part, so
//! the mask walk can try many short futures without copying.

/// What [`ParseTables::shift`] needs of a stack.
pub trait Stack {
    fn pop(&mut self) -> Option<u32>;
    fn push_slice(&mut self, symbols: &[u32]);
}

impl Stack for Vec<u32> {
    fn pop(&mut self) -> Option<u32> {
        Vec::pop(self)
    }
    fn push_slice(&mut self, symbols: &[u32]) {
        self.extend_from_slice(symbols);
    }
}

/// A stack that shares its lower part with another: the mask walk explores
/// many short futures of one parser state without copying its stack.
#[derive(Clone, Debug)]
pub struct StackView<'a> {
    base: &'a [u32],
    /// How many of `base`'s bottom elements are still on the stack.
    keep: usize,
    /// Symbols pushed above them, top last (inline: views are cloned per
    /// boundary on the mask's hot path).
    top: smallvec::SmallVec<[u32; 12]>,
}

impl<'a> StackView<'a> {
    pub fn new(base: &'a [u32]) -> Self {
        StackView {
            base,
            keep: base.len(),
            top: smallvec::SmallVec::new(),
        }
    }

    /// The stack from the top down.
    pub fn top_down(&self) -> impl Iterator<Item = u32> + '_ {
        self.top
            .iter()
            .rev()
            .chain(self.base[..self.keep].iter().rev())
            .copied()
    }

    /// How many base elements are kept, and the symbols above them (top last).
    pub fn parts(&self) -> (usize, &[u32]) {
        (self.keep, &self.top)
    }

    pub fn top_symbol(&self) -> Option<u32> {
        self.top
            .last()
            .or_else(|| self.keep.checked_sub(1).map(|i| &self.base[i]))
            .copied()
    }

    pub fn to_vec(&self) -> Vec<u32> {
        let mut v = self.base[..self.keep].to_vec();
        v.extend_from_slice(&self.top);
        v
    }
}

impl Stack for StackView<'_> {
    fn pop(&mut self) -> Option<u32> {
        if let Some(s) = self.top.pop() {
            return Some(s);
        }
        self.keep = self.keep.checked_sub(1)?;
        Some(self.base[self.keep])
    }
    fn push_slice(&mut self, symbols: &[u32]) {
        self.top.extend_from_slice(symbols);
    }
}
