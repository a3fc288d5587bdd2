//! The framing shared by every table snapshot: a magic tag, a format
//! version, then the tables in postcard. A snapshot from another gcd-core
//! (or not a snapshot at all) is an error that says so. Every stage that
//! writes bytes (terminal DFAs, compiled and bound grammars) uses this, so it
//! sits below all of them.

pub(crate) mod array256;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Why a snapshot was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The bytes do not begin with the magic tag of the kind of snapshot
    /// asked for, followed by a version (not a snapshot, or one of another
    /// kind).
    #[error("not a gcd snapshot (missing header)")]
    NotASnapshot,
    /// The snapshot was written in another format version, by another
    /// gcd-core.
    #[error("snapshot format {found}, this gcd-core reads format {expected}; rebuild it")]
    Version {
        /// The format version in the snapshot's header.
        found: u32,
        /// The format version this gcd-core reads.
        expected: u32,
    },
    /// The header is right but the tables do not decode, or their sizes and
    /// indices are inconsistent; the string says what is wrong.
    #[error("corrupt snapshot: {0}")]
    Corrupt(String),
    /// Bound tables were written for another vocabulary or another grammar
    /// than the ones they are loaded with (their fingerprints differ); the
    /// string says which.
    #[error("snapshot does not match: {0}")]
    Mismatch(String),
}

pub(crate) fn encode<T: Serialize + ?Sized>(magic: &[u8; 8], version: u32, value: &T) -> Vec<u8> {
    let mut out = magic.to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    postcard::to_extend(value, out).expect("serializing to a Vec cannot fail")
}

pub(crate) fn decode<T: DeserializeOwned>(
    magic: &[u8; 8],
    version: u32,
    bytes: &[u8],
) -> Result<T, SnapshotError> {
    let rest = bytes
        .strip_prefix(magic.as_slice())
        .ok_or(SnapshotError::NotASnapshot)?;
    let found = rest
        .get(..4)
        .map(|v| u32::from_le_bytes(v.try_into().expect("4 bytes")))
        .ok_or(SnapshotError::NotASnapshot)?;
    if found != version {
        return Err(SnapshotError::Version {
            found,
            expected: version,
        });
    }
    postcard::from_bytes(&rest[4..]).map_err(|e| SnapshotError::Corrupt(e.to_string()))
}
