//! Reads of a byte table (`state * 256 + byte`, [`DEAD`] for no state)
//! that every way of building a terminal DFA needs: predecessors, the
//! states that can still reach a match, how far each is from one, and
//! which bytes the table treats alike.

use super::{DEAD, UNREACHABLE};

/// Predecessors of every state of a table with `n` states and rows of
/// `width` entries, as one flat list: those of state `s` are
/// `preds[start[s]..start[s + 1]]`, each listed once however many columns
/// lead to `s`. Only the columns of `bytes` are read (one byte per class
/// is enough: a class's bytes lead every state to the same state).
fn predecessors_over(trans: &[u32], width: usize, n: usize, bytes: &[u8]) -> (Vec<u32>, Vec<u32>) {
    // Rows repeat targets (most bytes go to a few states): `stamp` keeps
    // each (row, target) pair once. Counting sort by target.
    let mut stamp = vec![u32::MAX; n];
    let mut start = vec![0u32; n + 1];
    for (q, row) in trans.chunks_exact(width).enumerate() {
        for t in bytes.iter().map(|&b| row[b as usize]) {
            if t != DEAD && stamp[t as usize] != q as u32 {
                stamp[t as usize] = q as u32;
                start[t as usize + 1] += 1;
            }
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    stamp.fill(u32::MAX);
    let mut fill = start.clone();
    let mut preds = vec![0u32; start[n] as usize];
    for (q, row) in trans.chunks_exact(width).enumerate() {
        for t in bytes.iter().map(|&b| row[b as usize]) {
            if t != DEAD && stamp[t as usize] != q as u32 {
                stamp[t as usize] = q as u32;
                preds[fill[t as usize] as usize] = q as u32;
                fill[t as usize] += 1;
            }
        }
    }
    (start, preds)
}

/// States of a byte-indexed table that can reach an accepting state.
pub(super) fn live_states(trans: &[u32], accepting: &[bool]) -> Vec<bool> {
    live_states_of_width(trans, 256, accepting)
}

/// [`live_states`] of a table with rows of `width` entries (one per byte
/// class: a product's rows before they are spread over the 256 bytes).
pub(super) fn live_states_of_width(trans: &[u32], width: usize, accepting: &[bool]) -> Vec<bool> {
    let n = accepting.len();
    let mut live = accepting.to_vec();
    // Sweeps from the last state down: DFAs numbered breadth-first mostly
    // step to higher numbers, so a few sweeps settle them, and a row stops
    // at its first live target. A sweep that changes nothing proves the
    // fixpoint.
    for _ in 0..8 {
        let mut changed = false;
        for s in (0..n).rev() {
            if !live[s]
                && trans[s * width..(s + 1) * width]
                    .iter()
                    .any(|&t| t != DEAD && live[t as usize])
            {
                live[s] = true;
                changed = true;
            }
        }
        if !changed {
            return live;
        }
    }
    // Long chains back to lower numbers: one backward search.
    let columns: Vec<u8> = (0..width).map(|c| c as u8).collect();
    let (start, preds) = predecessors_over(trans, width, n, &columns);
    let mut stack: Vec<u32> = (0..n as u32).filter(|&s| live[s as usize]).collect();
    while let Some(s) = stack.pop() {
        for &p in &preds[start[s as usize] as usize..start[s as usize + 1] as usize] {
            if !live[p as usize] {
                live[p as usize] = true;
                stack.push(p);
            }
        }
    }
    live
}

/// Breadth-first search backwards from the accepting states, reading every
/// byte (the reference for [`distances_by_class`]).
#[cfg(test)]
pub(super) fn distances_to_match(trans: &[u32], accepting: &[bool]) -> Vec<u32> {
    let every: Vec<u8> = (0..=255).collect();
    distances_over(trans, accepting, &every)
}

/// [`distances_to_match`] given the table's byte classes: the search reads
/// one byte per class, not 256 per state.
pub(super) fn distances_by_class(
    trans: &[u32],
    accepting: &[bool],
    class_of: &[u8; 256],
) -> Vec<u32> {
    let mut seen = [false; 256];
    let representatives: Vec<u8> = (0..=255u8)
        .filter(|&b| !std::mem::replace(&mut seen[class_of[b as usize] as usize], true))
        .collect();
    distances_over(trans, accepting, &representatives)
}

fn distances_over(trans: &[u32], accepting: &[bool], bytes: &[u8]) -> Vec<u32> {
    let n = accepting.len();
    let (start, preds) = predecessors_over(trans, 256, n, bytes);
    let mut dist = vec![UNREACHABLE; n];
    let mut queue = std::collections::VecDeque::new();
    for (q, d) in dist.iter_mut().enumerate() {
        if accepting[q] {
            *d = 0;
            queue.push_back(q as u32);
        }
    }
    while let Some(q) = queue.pop_front() {
        let next = dist[q as usize] + 1;
        for &p in &preds[start[q as usize] as usize..start[q as usize + 1] as usize] {
            if dist[p as usize] == UNREACHABLE {
                dist[p as usize] = next;
                queue.push_back(p);
            }
        }
    }
    dist
}

/// Per byte, its class among the bytes whose columns agree in every row
/// of `trans`, classes numbered by their first byte.
pub(super) fn byte_classes(trans: &[u32]) -> [u8; 256] {
    // Hash the columns row by row (cache-friendly, no allocation), then
    // confirm each byte against the first byte with its hash. A hash
    // collision only sends us to comparing whole columns.
    let mut hash = [0u64; 256];
    for row in trans.chunks_exact(256) {
        for (h, &t) in hash.iter_mut().zip(row) {
            *h = (*h ^ t as u64)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .rotate_left(23);
        }
    }
    let mut first: rustc_hash::FxHashMap<u64, u8> = Default::default();
    let mut rep: Vec<u8> = (0..=255u8)
        .map(|b| *first.entry(hash[b as usize]).or_insert(b))
        .collect();
    let agree =
        (trans.chunks_exact(256)).all(|row| (0..256).all(|b| row[b] == row[rep[b] as usize]));
    if !agree {
        let mut by_column: rustc_hash::FxHashMap<Vec<u32>, u8> = Default::default();
        for b in 0..=255u8 {
            let column: Vec<u32> = trans.chunks_exact(256).map(|row| row[b as usize]).collect();
            rep[b as usize] = *by_column.entry(column).or_insert(b);
        }
    }
    let mut class_of = [0u8; 256];
    let mut classes = 0u8;
    for b in 0..256 {
        if rep[b] as usize == b {
            class_of[b] = classes;
            classes = classes.wrapping_add(1);
        } else {
            class_of[b] = class_of[rep[b] as usize];
        }
    }
    class_of
}

/// Whether every row of `trans` sends the bytes of each class of
/// `classes` to one state.
pub(super) fn treat_alike(trans: &[u32], classes: &[u8; 256]) -> bool {
    let mut first = [None; 256];
    for b in 0..256 {
        first[classes[b] as usize].get_or_insert(b);
    }
    (trans.chunks_exact(256))
        .all(|row| (0..256).all(|b| first[classes[b] as usize].is_some_and(|f| row[b] == row[f])))
}
