//! Sets of terminals (plus the end-of-input marker): what analysis computes,
//! what the lexer's candidate sets and the parser's lookaheads are. A plain
//! bitset over terminal ids, so it belongs with the ids themselves.

/// A set of terminals plus the end-of-input marker, as a plain bitset.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct TermSet {
    // Inline up to 255 terminals: sets are built on the mask's hot path.
    words: smallvec::SmallVec<[u64; 4]>,
}

impl TermSet {
    /// A set over `n` terminals; index `n` is end of input.
    pub fn new(n: usize) -> Self {
        TermSet {
            words: smallvec::smallvec![0; (n + 1).div_ceil(64)],
        }
    }
    /// Adds `i`; true if it was not a member yet. Panics if `i` is past the
    /// set's capacity.
    pub fn insert(&mut self, i: usize) -> bool {
        let (w, b) = (i / 64, 1u64 << (i % 64));
        let was = self.words[w] & b != 0;
        self.words[w] |= b;
        !was
    }
    /// Whether `i` is a member (false past the set's capacity).
    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    /// Adds every member of `other`; true if something was new.
    pub fn union_with(&mut self, other: &TermSet) -> bool {
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            let n = *a | *b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
    /// Whether the two sets share a member.
    pub fn intersects(&self, other: &TermSet) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }
    /// Removes every member, keeping the capacity (for reused buffers).
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }
    /// Whether the set has no member, end of input included.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }
    /// Members in increasing order, a word at a time: sparse sets over
    /// thousands of terminals are common (one literal per JSON key).
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut rest = w;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(wi * 64 + b)
            })
        })
    }
    /// Removes `i` if present. Panics if `i` is past the set's capacity.
    pub fn remove(&mut self, i: usize) {
        self.words[i / 64] &= !(1u64 << (i % 64));
    }

    /// The members that two or more of `sets` hold, in one pass: whether
    /// any two of n sets intersect, without comparing n² pairs (a rule
    /// with 20,000 alternatives has 2·10⁸ pairs).
    pub fn in_several<'a>(sets: impl IntoIterator<Item = &'a TermSet>) -> TermSet {
        let mut once: smallvec::SmallVec<[u64; 4]> = smallvec::SmallVec::new();
        let mut twice: smallvec::SmallVec<[u64; 4]> = smallvec::SmallVec::new();
        for s in sets {
            if once.len() < s.words.len() {
                once.resize(s.words.len(), 0);
                twice.resize(s.words.len(), 0);
            }
            for ((o, t), w) in once.iter_mut().zip(twice.iter_mut()).zip(&s.words) {
                *t |= *o & w;
                *o |= w;
            }
        }
        TermSet { words: twice }
    }
}

#[cfg(test)]
mod tests {
    use super::TermSet;

    #[test]
    fn in_several_is_what_pairs_share() {
        let set = |xs: &[usize]| {
            let mut s = TermSet::new(200);
            xs.iter().for_each(|&x| {
                s.insert(x);
            });
            s
        };
        let sets = [
            set(&[1, 70, 130]),
            set(&[2, 70]),
            set(&[130, 199]),
            set(&[3]),
        ];
        let shared = TermSet::in_several(&sets);
        let mut pairwise = TermSet::new(200);
        for (i, a) in sets.iter().enumerate() {
            for b in &sets[i + 1..] {
                for x in a.iter().filter(|&x| b.contains(x)) {
                    pairwise.insert(x);
                }
            }
        }
        assert_eq!(shared.iter().collect::<Vec<_>>(), [70, 130]);
        assert_eq!(shared, pairwise);
        assert!(TermSet::in_several(&sets[3..]).is_empty());
        assert!(TermSet::in_several(&[]).is_empty());
    }
}
