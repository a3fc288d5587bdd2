//! Serde for `[T; 256]` tables (serde's own arrays stop at 32).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub fn serialize<T: Serialize, S: Serializer>(table: &[T; 256], s: S) -> Result<S::Ok, S::Error> {
    table.as_slice().serialize(s)
}

pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    d: D,
) -> Result<[T; 256], D::Error> {
    let v = Vec::<T>::deserialize(d)?;
    v.try_into()
        .map_err(|v: Vec<T>| serde::de::Error::invalid_length(v.len(), &"256 entries"))
}
