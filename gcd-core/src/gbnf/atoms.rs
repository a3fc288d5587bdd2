//! The grammar's alphabet cut into disjoint character sets ("atoms").
//!
//! gcd's lexer picks one winning terminal per lexeme, so two terminals that
//! match the same character could not both stay possible: with `[a-z] "x"
//! | "a" "y"`, reading `a` as the literal would lose `ax`. GBNF has no
//! such choice, every derivation reads its own characters. Cutting every
//! class and literal character of the grammar into the coarsest disjoint
//! pieces gives each character exactly one terminal, and a class becomes
//! the alternation of its pieces, so the terminal sequence of a string is
//! fixed by its characters and the parser alone decides between
//! derivations.

use std::collections::HashMap;

use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};

/// Disjoint character sets, and which of them make up each set the grammar
/// writes.
pub(crate) struct Alphabet {
    atoms: Vec<ClassUnicode>,
    pieces: HashMap<Vec<(char, char)>, Vec<usize>>,
}

fn key(class: &ClassUnicode) -> Vec<(char, char)> {
    class
        .ranges()
        .iter()
        .map(|r| (r.start(), r.end()))
        .collect()
}

const SURROGATES: std::ops::RangeInclusive<u32> = 0xD800..=0xDFFF;

/// The character at scalar value `v` or, inside the surrogate gap, the
/// nearest one in `direction` (up for a range's start, down for its end).
fn scalar(v: u32, up: bool) -> Option<char> {
    let v = match (SURROGATES.contains(&v), up) {
        (true, true) => 0xE000,
        (true, false) => 0xD7FF,
        _ => v,
    };
    char::from_u32(v)
}

impl Alphabet {
    /// The atoms of `classes`: each atom is the set of characters that
    /// belong to exactly the same classes.
    pub fn new<'c>(classes: impl IntoIterator<Item = &'c ClassUnicode>) -> Alphabet {
        let mut distinct: Vec<&ClassUnicode> = Vec::new();
        let mut seen: HashMap<Vec<(char, char)>, usize> = HashMap::new();
        for c in classes {
            seen.entry(key(c)).or_insert_with(|| {
                distinct.push(c);
                distinct.len() - 1
            });
        }
        // Elementary intervals between consecutive cut points.
        let mut cuts: Vec<u32> = Vec::new();
        for c in &distinct {
            for r in c.ranges() {
                cuts.push(r.start() as u32);
                cuts.push(r.end() as u32 + 1);
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        let intervals = cuts.len().saturating_sub(1);
        let words = distinct.len().div_ceil(64);
        let mut member = vec![0u64; intervals * words];
        for (j, c) in distinct.iter().enumerate() {
            for r in c.ranges() {
                let from = cuts.partition_point(|&x| x < r.start() as u32);
                let to = cuts.partition_point(|&x| x < r.end() as u32 + 1);
                for i in from..to {
                    member[i * words + j / 64] |= 1 << (j % 64);
                }
            }
        }
        let mut by_signature: HashMap<&[u64], usize> = HashMap::new();
        let mut atoms: Vec<ClassUnicode> = Vec::new();
        let mut signatures: Vec<&[u64]> = Vec::new();
        for i in 0..intervals {
            let signature = &member[i * words..(i + 1) * words];
            if signature.iter().all(|&w| w == 0) {
                continue;
            }
            let (Some(lo), Some(hi)) = (scalar(cuts[i], true), scalar(cuts[i + 1] - 1, false))
            else {
                continue;
            };
            if lo > hi {
                continue;
            }
            let atom = *by_signature.entry(signature).or_insert_with(|| {
                atoms.push(ClassUnicode::empty());
                signatures.push(signature);
                atoms.len() - 1
            });
            atoms[atom].push(ClassUnicodeRange::new(lo, hi));
        }
        let mut pieces = HashMap::new();
        for (j, c) in distinct.iter().enumerate() {
            let of: Vec<usize> = (0..atoms.len())
                .filter(|&a| signatures[a][j / 64] & (1 << (j % 64)) != 0)
                .collect();
            pieces.insert(key(c), of);
        }
        Alphabet { atoms, pieces }
    }

    /// The atoms that make up `class`, which must be one of the classes
    /// the alphabet was made from.
    pub fn pieces(&self, class: &ClassUnicode) -> &[usize] {
        self.pieces.get(&key(class)).map_or(&[], Vec::as_slice)
    }

    /// Atom `i`'s characters.
    pub fn atom(&self, i: usize) -> &ClassUnicode {
        &self.atoms[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(ranges: &[(char, char)]) -> ClassUnicode {
        ClassUnicode::new(ranges.iter().map(|&(a, b)| ClassUnicodeRange::new(a, b)))
    }

    #[test]
    fn atoms_are_disjoint_and_rebuild_every_class() {
        let az = class(&[('a', 'z')]);
        let a = class(&[('a', 'a')]);
        let mut not_quote = class(&[('"', '"')]);
        not_quote.negate();
        let digits_x = class(&[('0', '9'), ('x', 'x')]);
        let all = [az.clone(), a.clone(), not_quote.clone(), digits_x.clone()];
        let alphabet = Alphabet::new(&all);
        for c in &all {
            let mut rebuilt = ClassUnicode::empty();
            for &p in alphabet.pieces(c) {
                rebuilt.union(alphabet.atom(p));
            }
            assert_eq!(&rebuilt, c);
        }
        for i in 0..alphabet.atoms.len() {
            for j in i + 1..alphabet.atoms.len() {
                let mut both = alphabet.atom(i).clone();
                both.intersect(alphabet.atom(j));
                assert!(both.ranges().is_empty(), "atoms {i} and {j} overlap");
            }
        }
        // `a`, `x`, the rest of a-z, digits, everything else but `"`.
        assert_eq!(alphabet.atoms.len(), 5);
        assert_eq!(alphabet.pieces(&a).len(), 1);
        assert_eq!(alphabet.pieces(&az).len(), 3);
    }

    #[test]
    fn the_surrogate_gap_is_no_atom() {
        let any = class(&[('\0', char::MAX)]);
        let below = class(&[('\u{D000}', '\u{D7FF}')]);
        let alphabet = Alphabet::new([&any, &below]);
        let mut rebuilt = ClassUnicode::empty();
        for &p in alphabet.pieces(&any) {
            rebuilt.union(alphabet.atom(p));
        }
        let (mut missing, mut extra) = (any.clone(), rebuilt.clone());
        missing.difference(&rebuilt);
        extra.difference(&any);
        assert!(
            missing.ranges().is_empty() && extra.ranges().is_empty(),
            "{rebuilt:?}"
        );
        // D000-D7FF, and the rest (both sides of the gap) as one atom.
        assert_eq!(alphabet.pieces(&any).len(), 2);
    }
}
