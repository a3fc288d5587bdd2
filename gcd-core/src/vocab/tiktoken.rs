//! Loading tiktoken: rank files (`base64-token rank` per line) and the
//! encodings embedded in tiktoken-rs (`o200k_base`, `cl100k_base`, …).
//!
//! Separate because tiktoken has no byte spelling to decode but its own
//! problems: rank files carry no split regex or special tokens, so a file
//! is matched against the embedded encodings to borrow theirs, and the
//! embedded rank tables can only be read back through tiktoken-rs's API.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use tiktoken_rs::CoreBPE;

use super::{Encoder, Result, TokenKind, VocabError, VocabErrorKind, Vocabulary};

/// The encodings whose rank files tiktoken-rs embeds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Embedded {
    O200k,
    Cl100k,
    P50k,
    R50k,
}

const ALL: [Embedded; 4] = [
    Embedded::O200k,
    Embedded::Cl100k,
    Embedded::P50k,
    Embedded::R50k,
];

impl Embedded {
    pub(super) fn from_spec(spec: &str) -> Option<Self> {
        let s = spec.to_ascii_lowercase();
        let s = s.strip_suffix("_base").unwrap_or(&s);
        ALL.into_iter().find(|e| e.short() == s)
    }

    fn short(self) -> &'static str {
        match self {
            Embedded::O200k => "o200k",
            Embedded::Cl100k => "cl100k",
            Embedded::P50k => "p50k",
            Embedded::R50k => "r50k",
        }
    }

    fn name(self) -> String {
        format!("{}_base", self.short())
    }

    /// Number of ranks in the file (not counting specials): a cheap
    /// filter before comparing a rank file with this encoding.
    fn ranks(self) -> usize {
        match self {
            Embedded::O200k => 199_998,
            Embedded::Cl100k => 100_256,
            Embedded::P50k => 50_280,
            Embedded::R50k => 50_256,
        }
    }

    /// The encoder, built once per process.
    fn bpe(self) -> Result<&'static CoreBPE> {
        static CELLS: [OnceLock<Result<CoreBPE, String>>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        // tiktoken-rs returns anyhow errors; keep their text.
        type Build = fn() -> Result<CoreBPE, String>;
        let (cell, build): (_, Build) = match self {
            Embedded::O200k => (&CELLS[0], || {
                tiktoken_rs::o200k_base().map_err(|e| e.to_string())
            }),
            Embedded::Cl100k => (&CELLS[1], || {
                tiktoken_rs::cl100k_base().map_err(|e| e.to_string())
            }),
            Embedded::P50k => (&CELLS[2], || {
                tiktoken_rs::p50k_base().map_err(|e| e.to_string())
            }),
            Embedded::R50k => (&CELLS[3], || {
                tiktoken_rs::r50k_base().map_err(|e| e.to_string())
            }),
        };
        cell.get_or_init(build).as_ref().map_err(|e| {
            VocabError::new(
                VocabErrorKind::Malformed,
                self.name(),
                format!("tiktoken-rs: {e}"),
            )
        })
    }
}

/// The token bytes of an embedded encoding, read back through
/// tiktoken-rs's public API (its rank table is private): `decode` each
/// id; ids it does not know are holes; ids that decode to invalid UTF-8
/// alone are fetched raw.
pub(super) fn embedded(e: Embedded) -> Result<Vocabulary> {
    let bpe = e.bpe()?;
    let specials = special_ids(bpe, &e.name())?;
    let (tokens, kinds) = probe(bpe, &specials);
    let mut v = Vocabulary::assemble(e.name(), tokens, kinds, Some(Encoder::Tiktoken(bpe)), "");
    v.eos_from(specials.get(tiktoken_rs::ENDOFTEXT).copied());
    Ok(v)
}

fn special_ids(bpe: &CoreBPE, origin: &str) -> Result<HashMap<String, u32>> {
    bpe.special_tokens()
        .into_iter()
        .map(|s| match bpe.encode_with_special_tokens(s)[..] {
            [id] => Ok((s.to_string(), id)),
            _ => Err(VocabError::new(
                VocabErrorKind::Malformed,
                origin,
                format!("special token {s:?} does not encode to one id"),
            )),
        })
        .collect()
}

fn probe(bpe: &CoreBPE, specials: &HashMap<String, u32>) -> (Vec<Vec<u8>>, Vec<TokenKind>) {
    let by_id: HashMap<u32, &str> = specials.iter().map(|(s, &i)| (i, s.as_str())).collect();
    let n = specials
        .values()
        .map(|&i| i as usize + 1)
        .max()
        .unwrap_or(0);
    let mut tokens = Vec::with_capacity(n);
    let mut kinds = Vec::with_capacity(n);
    for id in 0..n as u32 {
        if let Some(s) = by_id.get(&id) {
            tokens.push(s.as_bytes().to_vec());
            kinds.push(TokenKind::Special);
            continue;
        }
        let bytes = match bpe.decode(vec![id]) {
            Ok(s) => Some(s.into_bytes()),
            // Known id, but not UTF-8 by itself: safe to fetch raw.
            Err(e)
                if e.to_string()
                    .starts_with("Unable to decode into a valid UTF-8") =>
            {
                bpe._decode_native_and_split(vec![id]).next()
            }
            // "Invalid token for decoding": an unused id.
            Err(_) => None,
        };
        match bytes {
            Some(b) => {
                tokens.push(b);
                kinds.push(TokenKind::Normal);
            }
            None => {
                tokens.push(Vec::new());
                kinds.push(TokenKind::Special);
            }
        }
    }
    (tokens, kinds)
}

/// Parses `base64 rank` lines. A first line that does not parse means
/// the file is not a rank file at all; a later one, a broken rank file.
pub(super) fn parse_ranks(data: &[u8], origin: &str) -> Result<Vec<(Vec<u8>, u32)>> {
    let not = |msg: String| Err(VocabError::new(VocabErrorKind::NotATokenizer, origin, msg));
    let Ok(text) = std::str::from_utf8(data) else {
        return not("not a .tiktoken rank file: not UTF-8 text".into());
    };
    let mut ranks = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed = line
            .split_once(' ')
            .ok_or("expected `base64-token rank`")
            .and_then(|(tok, rank)| {
                let bytes = base64_decode(tok).ok_or("the token is not valid base64")?;
                let rank = rank
                    .trim()
                    .parse::<u32>()
                    .map_err(|_| "the rank is not a number")?;
                Ok((bytes, rank))
            });
        match parsed {
            Ok(r) => ranks.push(r),
            Err(why) => {
                let shown: String = line.chars().take(40).collect();
                let msg = format!("line {}: {why}: {shown:?}", n + 1);
                return if ranks.is_empty() {
                    not(format!("not a .tiktoken rank file: {msg}"))
                } else {
                    Err(VocabError::new(VocabErrorKind::Malformed, origin, msg))
                };
            }
        }
    }
    if ranks.is_empty() {
        return not("not a .tiktoken rank file: no rank lines".into());
    }
    Ok(ranks)
}

/// Builds a vocabulary from parsed ranks. With `spec` (regex, specials)
/// the encoder is built from it; without, an embedded encoding with
/// exactly these ranks lends its encoder, or there is none.
pub(super) fn from_ranks(
    ranks: Vec<(Vec<u8>, u32)>,
    origin: &str,
    name: String,
    spec: Option<(&str, &[(&str, u32)])>,
) -> Result<Vocabulary> {
    let malformed = |msg: String| VocabError::new(VocabErrorKind::Malformed, origin, msg);
    // Duplicates would make tiktoken-rs panic (or silently drop a rank).
    let mut seen_bytes = HashSet::with_capacity(ranks.len());
    let mut by_id: HashMap<u32, &[u8]> = HashMap::with_capacity(ranks.len());
    for (b, r) in &ranks {
        if by_id.insert(*r, b).is_some() {
            return Err(malformed(format!("rank {r} appears twice")));
        }
        if !seen_bytes.insert(b.as_slice()) {
            return Err(malformed(format!(
                "token {:?} appears twice",
                String::from_utf8_lossy(b)
            )));
        }
    }

    let (encoder, specials): (Option<Encoder>, Vec<(String, u32)>) = match spec {
        Some((pattern, specials)) => {
            for (s, id) in specials {
                if by_id.contains_key(id) {
                    return Err(malformed(format!("special token {s:?} reuses rank {id}")));
                }
            }
            let bpe = CoreBPE::new(
                ranks.iter().cloned().collect(),
                specials.iter().map(|(s, i)| (s.to_string(), *i)).collect(),
                pattern,
            )
            .map_err(|e| malformed(format!("cannot build the encoder: {e}")))?;
            let sp = specials.iter().map(|(s, i)| (s.to_string(), *i)).collect();
            (Some(Encoder::TiktokenOwned(Box::new(bpe))), sp)
        }
        None => match identify(&by_id)? {
            Some(e) => {
                let bpe = e.bpe()?;
                let sp = special_ids(bpe, origin)?.into_iter().collect();
                (Some(Encoder::Tiktoken(bpe)), sp)
            }
            None => (None, Vec::new()),
        },
    };

    let n = by_id
        .keys()
        .chain(specials.iter().map(|(_, i)| i))
        .map(|&i| i as usize + 1)
        .max()
        .unwrap_or(0);
    super::check_id_span(n, by_id.len() + specials.len(), origin)?;
    let mut tokens = vec![Vec::new(); n];
    let mut kinds = vec![TokenKind::Special; n];
    for (&id, b) in &by_id {
        tokens[id as usize] = b.to_vec();
        kinds[id as usize] = TokenKind::Normal;
    }
    for (s, id) in &specials {
        tokens[*id as usize] = s.as_bytes().to_vec();
    }
    let reason = "this .tiktoken file is not an embedded encoding and a rank file does not \
                  carry its split regex; load it with Vocabulary::from_tiktoken_file_with";
    let mut v = Vocabulary::assemble(name, tokens, kinds, encoder, reason);
    v.eos_from(
        specials
            .iter()
            .filter(|(s, _)| s == tiktoken_rs::ENDOFTEXT)
            .map(|(_, i)| *i),
    );
    Ok(v)
}

/// The embedded encoding with exactly these ranks, if any.
fn identify(by_id: &HashMap<u32, &[u8]>) -> Result<Option<Embedded>> {
    for e in ALL {
        if e.ranks() != by_id.len() {
            continue;
        }
        let known = embedded(e)?;
        let same = by_id.iter().all(|(&id, b)| {
            known.kind(id).ok() == Some(TokenKind::Normal) && known.token_bytes(id).ok() == Some(*b)
        });
        if same {
            return Ok(Some(e));
        }
    }
    Ok(None)
}

/// Strict standard base64 (with `=` padding), as tiktoken files use.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.as_bytes();
    if s.is_empty() || s.len() % 4 != 0 {
        return None;
    }
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let chunks = s.len() / 4;
    for (i, q) in s.chunks(4).enumerate() {
        let pad = if i + 1 == chunks {
            q.iter().rev().take_while(|&&c| c == b'=').count()
        } else {
            0
        };
        if pad > 2 {
            return None;
        }
        let mut n = 0u32;
        for &c in &q[..4 - pad] {
            n = n << 6 | val(c)?;
        }
        n <<= 6 * pad as u32;
        let b = n.to_be_bytes();
        out.extend_from_slice(&b[1..4 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64() {
        use super::base64_decode as d;
        assert_eq!(d("IQ==").unwrap(), b"!");
        assert_eq!(d("aGk=").unwrap(), b"hi");
        assert_eq!(d("aGV5").unwrap(), b"hey");
        assert_eq!(d("IGhlbGxv").unwrap(), b" hello");
        assert_eq!(d("/w==").unwrap(), [0xFF]);
        assert!(d("").is_none());
        assert!(d("abc").is_none());
        assert!(d("a=bc").is_none());
        assert!(d("a===").is_none());
        assert!(d("ab!c").is_none());
    }

    #[test]
    fn tiktoken_rank_parsing() {
        let p = |s: &str| parse_ranks(s.as_bytes(), "f.tiktoken");
        assert_eq!(
            p("IQ== 0\naGk= 1\n").unwrap(),
            [(b"!".to_vec(), 0), (b"hi".to_vec(), 1)]
        );
        assert_eq!(
            p("hello world\n").unwrap_err().kind(),
            VocabErrorKind::NotATokenizer
        );
        let e = p("IQ== 0\naGk= x\n").unwrap_err();
        assert_eq!(e.kind(), VocabErrorKind::Malformed);
        assert!(e.to_string().contains("line 2"), "{e}");
        assert_eq!(p("").unwrap_err().kind(), VocabErrorKind::NotATokenizer);
        let dup = from_ranks(p("IQ== 0\naGk= 0\n").unwrap(), "f", "f".into(), None);
        assert_eq!(dup.unwrap_err().kind(), VocabErrorKind::Malformed);
        let v = from_ranks(p("IQ== 0\naGk= 2\n").unwrap(), "f", "f".into(), None).unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v.kind(1).unwrap(), TokenKind::Special);
        assert_eq!(
            v.encode("hi").unwrap_err().kind(),
            VocabErrorKind::NoEncoder
        );
        let v = from_ranks(
            p("IQ== 0\naA== 1\naQ== 2\naGk= 3\n").unwrap(),
            "f",
            "f".into(),
            Some((r"\w+|\W", &[("<|endoftext|>", 4)])),
        )
        .unwrap();
        assert_eq!(v.encode("hi!").unwrap(), [3, 0]);
        assert_eq!(v.eos_ids(), [4]);
        assert_eq!(v.kind(4).unwrap(), TokenKind::Special);
    }
}
