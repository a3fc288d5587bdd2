//! Byte classes: bytes that every table treats alike, so tables are indexed
//! by class instead of by byte.

use super::TerminalDfa;

/// Bytes in one class are treated alike by every terminal DFA; tables are
/// indexed by class to stay small.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ByteClasses {
    /// The class of each byte; classes are numbered `0..len()`.
    #[serde(with = "crate::codec::array256")]
    pub class_of: [u8; 256],
    /// One byte of each class.
    pub representatives: Vec<u8>,
}

impl ByteClasses {
    /// Bytes whose columns agree in every table share a class; classes are
    /// numbered in order of their first byte, which represents them.
    ///
    /// Two bytes that share a class in each table agree in every table
    /// (each table's own classes are worked out once per table and kept
    /// with it; read off the table they are the fewest, given by its
    /// builder they may split more, and so may these). So a byte's
    /// classes, table by table, are hashed into one
    /// signature, and bytes are grouped by signature: a multiply per byte
    /// and table, where refining pair by pair hashed a pair each time (8%
    /// of a median schema's first mask). A grouping is then checked
    /// against every table; a signature collision, which the check would
    /// catch, falls back to the refinement.
    pub fn new(dfas: &[TerminalDfa]) -> ByteClasses {
        let mut signature = [0u64; 256];
        for d in dfas {
            for (h, &c) in signature.iter_mut().zip(d.byte_classes()) {
                *h = (*h ^ u64::from(c)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            }
        }
        let classes = Self::numbered_by(|b| signature[b as usize]);
        let (class_of, representatives) = (classes.class_of, &classes.representatives);
        let agree = dfas.iter().all(|d| {
            let own = d.byte_classes();
            (0..256).all(|b| own[b] == own[representatives[class_of[b] as usize] as usize])
        });
        match agree {
            true => classes,
            false => Self::by_refinement(dfas),
        }
    }

    /// Bytes with equal keys share a class, numbered in order of their
    /// first byte: what a table's builder that knows which bytes its rows
    /// treat alike gives (see [`TerminalDfa::from_tables_with_classes`]).
    pub fn numbered_by<K: std::hash::Hash + Eq>(mut key: impl FnMut(u8) -> K) -> ByteClasses {
        let mut number: rustc_hash::FxHashMap<K, u8> = Default::default();
        let mut class_of = [0u8; 256];
        let mut representatives = Vec::new();
        for b in 0..=255u8 {
            let next = number.len() as u8;
            class_of[b as usize] = *number.entry(key(b)).or_insert_with(|| {
                representatives.push(b);
                next
            });
        }
        ByteClasses {
            class_of,
            representatives,
        }
    }

    /// [`new`](Self::new) by refining each table's classes in turn.
    pub(super) fn by_refinement(dfas: &[TerminalDfa]) -> ByteClasses {
        let mut class_of = [0u8; 256];
        let mut pairs: rustc_hash::FxHashMap<(u8, u8), u8> = Default::default();
        for d in dfas {
            let own = d.byte_classes();
            pairs.clear();
            let mut next = [0u8; 256];
            for b in 0..256 {
                let n = pairs.len() as u8;
                next[b] = *pairs.entry((class_of[b], own[b])).or_insert(n);
            }
            class_of = next;
        }
        // Numbered by first byte, as the refinement above already does:
        // each new pair is met first at its smallest byte.
        let mut representatives = Vec::new();
        for (b, &c) in class_of.iter().enumerate() {
            if c as usize == representatives.len() {
                representatives.push(b as u8);
            }
        }
        ByteClasses {
            class_of,
            representatives,
        }
    }

    /// The same classes by comparing whole columns: the reference for tests.
    #[cfg(test)]
    pub(super) fn by_columns(dfas: &[TerminalDfa]) -> ByteClasses {
        let mut sig_to_class: rustc_hash::FxHashMap<Vec<u32>, u8> = Default::default();
        let mut class_of = [0u8; 256];
        let mut representatives = Vec::new();
        for b in 0..=255u8 {
            let sig: Vec<u32> = dfas
                .iter()
                .flat_map(|d| (0..d.len()).map(move |s| d.next(s as u32, b)))
                .collect();
            let next = sig_to_class.len() as u8;
            let c = *sig_to_class.entry(sig).or_insert_with(|| {
                representatives.push(b);
                next
            });
            class_of[b as usize] = c;
        }
        ByteClasses {
            class_of,
            representatives,
        }
    }

    /// How many classes there are (at most 256).
    pub fn len(&self) -> usize {
        self.representatives.len()
    }

    /// Whether there are no classes; never true for classes built by
    /// [`new`](Self::new), which always cover all 256 bytes.
    pub fn is_empty(&self) -> bool {
        self.representatives.is_empty()
    }
}
