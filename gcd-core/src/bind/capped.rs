//! A map of shared values that holds at most so many bytes: past the cap
//! it starts over. The stores of head masks, pieces and state tables grow with what
//! requests meet, and a server must not grow with them without bound.

use std::hash::Hash;
use std::sync::Arc;

use rustc_hash::FxHashMap;

#[derive(Debug)]
pub(crate) struct Capped<K, V> {
    map: FxHashMap<K, Arc<V>>,
    bytes: usize,
    max_bytes: usize,
}

impl<K: Hash + Eq, V> Capped<K, V> {
    pub(crate) fn new(max_bytes: usize) -> Self {
        Capped {
            map: FxHashMap::default(),
            bytes: 0,
            max_bytes,
        }
    }

    pub(crate) fn get(&self, key: &K) -> Option<Arc<V>> {
        self.map.get(key).cloned()
    }

    /// Keeps `value`, which holds `bytes`, emptying the map first when it
    /// would pass the cap.
    pub(crate) fn insert(&mut self, key: K, value: Arc<V>, bytes: usize) {
        if self.bytes + bytes > self.max_bytes {
            self.map.clear();
            self.bytes = 0;
        }
        self.bytes += bytes;
        self.map.insert(key, value);
    }
}
