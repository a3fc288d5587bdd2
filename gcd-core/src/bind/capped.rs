//! A map of shared values that holds at most so many bytes. The stores of
//! head masks, pieces and state tables grow with what requests meet, and a
//! server must not grow with them without bound.
//!
//! It keeps two generations, each at most half the cap: new values go to
//! the current one, a value found in the old one moves to the current one,
//! and when the current one is full the old one is dropped and the current
//! one becomes old. So what was used within the last generation stays.
//! Starting over instead (one map, emptied at the cap) made every state a
//! MaskBench replay met next walk the trie again, and dropping 64 MB of
//! tables inside a mask took most of that mask's 30 ms. The dropped
//! generation is freed on a thread of its own, off the mask's path.

use std::hash::Hash;
use std::sync::Arc;

use rustc_hash::FxHashMap;

/// A value and the bytes it was counted as.
type Entry<V> = (Arc<V>, usize);

#[derive(Debug)]
pub(crate) struct Capped<K, V> {
    current: FxHashMap<K, Entry<V>>,
    old: FxHashMap<K, Entry<V>>,
    /// Bytes held by `current`.
    bytes: usize,
    max_bytes: usize,
}

impl<K, V> Capped<K, V>
where
    K: Hash + Eq + Send + 'static,
    V: Send + Sync + 'static,
{
    pub(crate) fn new(max_bytes: usize) -> Self {
        Capped {
            current: FxHashMap::default(),
            old: FxHashMap::default(),
            bytes: 0,
            max_bytes,
        }
    }

    /// The value under `key`, moved into the current generation if it was
    /// in the old one.
    pub(crate) fn get(&mut self, key: &K) -> Option<Arc<V>> {
        if let Some((value, _)) = self.current.get(key) {
            return Some(value.clone());
        }
        let (key, (value, bytes)) = self.old.remove_entry(key)?;
        self.insert(key, value.clone(), bytes);
        Some(value)
    }

    /// Keeps `value`, which holds `bytes`, in the current generation,
    /// turning generations first when it would pass half the cap.
    pub(crate) fn insert(&mut self, key: K, value: Arc<V>, bytes: usize) {
        if self.bytes + bytes > self.max_bytes / 2 && !self.current.is_empty() {
            let dropped = std::mem::replace(&mut self.old, std::mem::take(&mut self.current));
            self.bytes = 0;
            free_elsewhere(dropped);
        }
        self.bytes += bytes;
        if let Some((_, was)) = self.current.insert(key, (value, bytes)) {
            self.bytes -= was;
        }
    }
}

/// Drops `x` on a thread of its own (here, if no thread can be started):
/// freeing a generation's hundreds of thousands of allocations took
/// milliseconds.
fn free_elsewhere<T: Send + 'static>(x: T) {
    // When no thread can be started, the closure, `x` with it, is dropped
    // by `spawn` itself.
    let _ = (std::thread::Builder::new().name("gcd-cache-free".into())).spawn(move || drop(x));
}

#[cfg(test)]
mod tests {
    use super::Capped;
    use std::sync::Arc;

    /// Bytes stay within the cap; what was used within a generation
    /// survives the turn, and what was not is gone after two.
    #[test]
    fn generations_keep_what_was_used() {
        let mut c: Capped<u32, u32> = Capped::new(100);
        for k in 0..5 {
            c.insert(k, Arc::new(k), 10);
        }
        assert_eq!(c.get(&0).as_deref(), Some(&0));
        // Past half the cap: 0..5 become old.
        c.insert(5, Arc::new(5), 10);
        assert_eq!(c.get(&1).as_deref(), Some(&1), "an old value is found");
        for k in 6..10 {
            c.insert(k, Arc::new(k), 10);
        }
        // Another turn: the old generation (0, 2, 3, 4) is dropped; 1 was
        // moved into the generation that is now old.
        assert_eq!(c.get(&2), None);
        assert_eq!(c.get(&1).as_deref(), Some(&1));
        let held: usize = (c.current.values().chain(c.old.values()))
            .map(|(_, b)| b)
            .sum();
        assert!(held <= 100, "{held} bytes held");
        assert!(c.bytes <= 50);
    }
}
