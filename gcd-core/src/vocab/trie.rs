//! The token trie: every normal token's bytes in one prefix tree.
//!
//! Nodes are stored in depth-first preorder with the end of each subtree, so
//! a walk that finds a dead prefix skips all tokens below it with one jump.
//! The trie depends only on the vocabulary and is shared by every grammar
//! bound to it.

use crate::vocab::Vocabulary;

/// A vocabulary's text tokens as a prefix tree over their bytes, nodes in
/// depth-first preorder (see the module docs); shareable between every
/// grammar bound to that vocabulary.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TokenTrie {
    /// Byte on the edge into each node; node 0 is the root (byte unused).
    pub byte: Vec<u8>,
    /// One past the last node of each node's subtree.
    pub subtree_end: Vec<u32>,
    /// Depth of each node (root = 0).
    pub depth: Vec<u16>,
    /// Tokens ending at node `i`: `tokens[token_off[i]..token_off[i + 1]]`.
    pub token_off: Vec<u32>,
    /// Token ids grouped by the node they end at, node by node (see
    /// `token_off`).
    pub tokens: Vec<u32>,
    /// Number of token ids (mask width without padding).
    pub vocab_len: usize,
    /// First byte of each normal token (for filters), indexed by token id.
    pub first_byte: Vec<Option<u8>>,
    /// The greatest node depth: the longest token, in bytes.
    pub max_depth: usize,
}

impl TokenTrie {
    /// Builds the trie of `vocab`'s [normal tokens](Vocabulary::normal_tokens);
    /// special, empty and EOS tokens are left out.
    pub fn new(vocab: &Vocabulary) -> TokenTrie {
        let mut entries: Vec<(&[u8], u32)> = vocab
            .normal_tokens()
            .filter(|(_, b)| !b.is_empty())
            .map(|(i, b)| (b, i))
            .collect();
        entries.sort_unstable();
        let mut first_byte = vec![None; vocab.len()];
        for &(b, id) in &entries {
            first_byte[id as usize] = Some(b[0]);
        }
        let mut byte = vec![0u8];
        let mut depth = vec![0u16];
        let mut subtree_end = vec![0u32];
        let mut node_tokens: Vec<Vec<u32>> = vec![Vec::new()];
        // path[d] = node index at depth d on the current path.
        let mut path: Vec<usize> = vec![0];
        let mut prev: &[u8] = &[];
        for &(bytes, id) in &entries {
            // Common prefix with the previous token shares nodes.
            let common = prev.iter().zip(bytes).take_while(|(a, b)| a == b).count();
            for &node in &path[common + 1..] {
                subtree_end[node] = byte.len() as u32;
            }
            path.truncate(common + 1);
            for &b in &bytes[common..] {
                let node = byte.len();
                byte.push(b);
                depth.push(path.len() as u16);
                subtree_end.push(0);
                node_tokens.push(Vec::new());
                path.push(node);
            }
            node_tokens[*path.last().expect("the path holds the root")].push(id);
            prev = bytes;
        }
        for &node in &path {
            subtree_end[node] = byte.len() as u32;
        }
        let mut token_off = Vec::with_capacity(byte.len() + 1);
        let mut tokens = Vec::new();
        for t in &node_tokens {
            token_off.push(tokens.len() as u32);
            tokens.extend_from_slice(t);
        }
        token_off.push(tokens.len() as u32);
        let max_depth = depth.iter().copied().max().unwrap_or(0) as usize;
        TokenTrie {
            byte,
            subtree_end,
            depth,
            token_off,
            tokens,
            vocab_len: vocab.len(),
            first_byte,
            max_depth,
        }
    }

    /// The invariants walks rely on, for tries loaded from bytes.
    pub(crate) fn check(&self, vocab_len: usize) -> Result<(), String> {
        let n = self.byte.len();
        let ok = n > 0
            && self.subtree_end.len() == n
            && self.depth.len() == n
            && self.token_off.len() == n + 1
            && self.token_off.windows(2).all(|w| w[0] <= w[1])
            && self.token_off[n] as usize == self.tokens.len()
            && self.tokens.iter().all(|&t| (t as usize) < vocab_len)
            && self.vocab_len == vocab_len
            && self.first_byte.len() == vocab_len
            && (0..n).all(|i| {
                let end = self.subtree_end[i] as usize;
                end > i && end <= n && (self.depth[i] as usize) <= self.max_depth
            })
            && (1..n).all(|i| self.depth[i] >= 1);
        if ok && self.nests() {
            Ok(())
        } else {
            Err("inconsistent token trie".into())
        }
    }

    /// Whether the nodes form a tree in preorder as [`new`](Self::new)
    /// builds it, which walks and [`first_byte_of_node`](Self::first_byte_of_node)
    /// rely on: each subtree lies inside its parent's, a child is one level
    /// deeper, every leaf holds a token, and each token's `first_byte` is
    /// the byte under the root on its path. Checked in one pass, so a
    /// corrupt snapshot is refused instead of panicking in a walk.
    fn nests(&self) -> bool {
        let n = self.byte.len();
        if self.subtree_end[0] as usize != n || self.depth[0] != 0 {
            return false;
        }
        // The open ancestors of the node at hand, innermost last.
        let mut open: Vec<usize> = vec![0];
        for i in 1..n {
            while open
                .last()
                .is_some_and(|&a| self.subtree_end[a] as usize <= i)
            {
                open.pop();
            }
            let Some(&parent) = open.last() else {
                return false;
            };
            let end = self.subtree_end[i] as usize;
            let is_leaf = end == i + 1;
            if self.depth[i] != self.depth[parent] + 1
                || end > self.subtree_end[parent] as usize
                || (is_leaf && self.token_off[i] == self.token_off[i + 1])
            {
                return false;
            }
            open.push(i);
            let top = open.get(1).map_or(self.byte[i], |&c| self.byte[c]);
            if self
                .tokens_at(i)
                .iter()
                .any(|&t| self.first_byte[t as usize] != Some(top))
            {
                return false;
            }
        }
        self.tokens_at(0).is_empty()
    }

    /// How many nodes the trie has, the root included.
    pub fn num_nodes(&self) -> usize {
        self.byte.len()
    }

    /// The ids of the tokens whose bytes end exactly at `node`: none, one,
    /// or several when tokens have the same bytes.
    #[inline]
    pub fn tokens_at(&self, node: usize) -> &[u32] {
        &self.tokens[self.token_off[node] as usize..self.token_off[node + 1] as usize]
    }

    /// The first token at or below `node` (not the root) in trie order:
    /// its bytes start with the path to `node`.
    pub fn first_token_below(&self, node: usize) -> u32 {
        // Every leaf holds a token, and pre-order reaches one inside the subtree.
        let mut n = node;
        while self.token_off[n] == self.token_off[n + 1] {
            n += 1;
        }
        self.tokens[self.token_off[n] as usize]
    }

    /// The first byte of the path to `node` (not the root).
    pub fn first_byte_of_node(&self, node: usize) -> u8 {
        self.first_byte[self.first_token_below(node) as usize].expect("trie tokens are normal")
    }

    /// Children of the root, as node indices.
    pub fn root_children(&self) -> impl Iterator<Item = usize> + '_ {
        let mut i = 1;
        std::iter::from_fn(move || {
            if i >= self.byte.len() {
                return None;
            }
            let n = i;
            i = self.subtree_end[n] as usize;
            Some(n)
        })
    }

    /// Bytes the trie holds on the heap (close estimate).
    pub fn heap_bytes(&self) -> usize {
        self.byte.len() * (1 + 4 + 2 + 4) + self.tokens.len() * 4 + self.first_byte.len() * 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ab`, `a`, `b`, `abc`: nesting, a leaf and two root children.
    fn small_vocab() -> Vocabulary {
        let tokens = ["ab", "a", "b", "abc"].map(|t| t.as_bytes().to_vec());
        Vocabulary::from_tokens(tokens.to_vec(), vec![])
    }

    #[test]
    fn preorder_with_subtrees() {
        let v = small_vocab();
        let t = TokenTrie::new(&v);
        // root, a, ab, abc, b
        assert_eq!(t.byte[1..], *b"abcb");
        assert_eq!(t.subtree_end, vec![5, 4, 4, 4, 5]);
        assert_eq!(t.tokens_at(1), &[1]);
        assert_eq!(t.tokens_at(2), &[0]);
        assert_eq!(t.tokens_at(3), &[3]);
        assert_eq!(t.tokens_at(4), &[2]);
        assert_eq!(t.root_children().collect::<Vec<_>>(), vec![1, 4]);
        assert_eq!(t.check(4), Ok(()));
    }

    #[test]
    fn check_refuses_tries_that_walks_would_trip_on() {
        let v = small_vocab();
        let good = TokenTrie::new(&v);
        let broken: Vec<(&str, Box<dyn Fn(&mut TokenTrie)>)> = vec![
            // `ab`'s subtree reaching past `a`'s.
            ("escaping subtree", Box::new(|t| t.subtree_end[2] = 5)),
            // A leaf (`abc`) without its token.
            (
                "empty leaf",
                Box::new(|t| {
                    t.tokens.remove(2);
                    for o in &mut t.token_off[4..] {
                        *o -= 1;
                    }
                }),
            ),
            ("skipped level", Box::new(|t| t.depth[4] = 2)),
            (
                "wrong first byte",
                Box::new(|t| t.first_byte[0] = Some(b'b')),
            ),
            ("token at the root", Box::new(|t| t.token_off[1] = 1)),
        ];
        for (what, damage) in broken {
            let mut t = good.clone();
            damage(&mut t);
            assert!(t.check(4).is_err(), "{what}");
        }
    }
}
