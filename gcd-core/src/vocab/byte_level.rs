//! How `tokenizer.json` token strings spell single bytes: GPT-2's
//! byte-to-unicode alphabet (`Ġ` is a space) and SentencePiece's `<0xAB>`
//! byte-fallback tokens.
//!
//! Pure tables and functions, apart from the loader so each mapping can be
//! checked byte by byte: one wrong byte here makes every mask unsound.

/// GPT-2 spells bytes as printable chars so BPE can work on strings: the
/// printable ranges `!`..=`~`, `¡`..=`¬`, `®`..=`ÿ` stand for themselves;
/// the other 68 bytes, in increasing order, become U+0100 + n.
const BYTE_TO_CHAR: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut n = 0;
    let mut b = 0;
    while b < 256 {
        let printable =
            (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        table[b] = if printable {
            b as u32
        } else {
            let c = 256 + n;
            n += 1;
            c
        };
        b += 1;
    }
    table
};

/// The inverse of [`BYTE_TO_CHAR`]; -1 for chars outside the alphabet.
const CHAR_TO_BYTE: [i16; 324] = {
    let mut table = [-1i16; 324];
    let mut b = 0;
    while b < 256 {
        table[BYTE_TO_CHAR[b] as usize] = b as i16;
        b += 1;
    }
    table
};

/// Bytes of a byte-level token string. A string with a char outside the
/// alphabet (an added token such as `"    "`) is taken as UTF-8 text, which
/// is what HF's ByteLevel decoder does too.
pub(super) fn byte_level_bytes(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        match CHAR_TO_BYTE.get(c as usize) {
            Some(&b) if b >= 0 => out.push(b as u8),
            _ => return s.as_bytes().to_vec(),
        }
    }
    out
}

/// `<0xAB>` → 0xAB (SentencePiece byte-fallback tokens, uppercase hex).
pub(super) fn byte_fallback_byte(s: &str) -> Option<u8> {
    let hex = s.strip_prefix("<0x")?.strip_suffix('>')?;
    if hex.len() != 2
        || !hex
            .bytes()
            .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(&c))
    {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn byte_level_alphabet() {
        assert_eq!(BYTE_TO_CHAR[b' ' as usize], 'Ġ' as u32);
        assert_eq!(BYTE_TO_CHAR[b'\n' as usize], 'Ċ' as u32);
        assert_eq!(BYTE_TO_CHAR[b'!' as usize], '!' as u32);
        assert_eq!(BYTE_TO_CHAR[0xAD], 323); // the last unprintable byte
        assert_eq!(BYTE_TO_CHAR[0], 256);
        // A bijection onto 256 distinct chars.
        let distinct: HashSet<u32> = BYTE_TO_CHAR.iter().copied().collect();
        assert_eq!(distinct.len(), 256);
        for b in 0..=255u8 {
            let c = char::from_u32(BYTE_TO_CHAR[b as usize]).unwrap();
            assert_eq!(byte_level_bytes(&c.to_string()), vec![b]);
        }
        assert_eq!(byte_level_bytes("ĠhelloĊ"), b" hello\n");
        // Outside the alphabet: taken as UTF-8 text.
        assert_eq!(byte_level_bytes("  x"), b"  x");
        assert_eq!(byte_level_bytes("日本"), "日本".as_bytes());
    }

    #[test]
    fn byte_fallback_tokens() {
        assert_eq!(byte_fallback_byte("<0x0A>"), Some(0x0A));
        assert_eq!(byte_fallback_byte("<0xFF>"), Some(0xFF));
        assert_eq!(byte_fallback_byte("<0xff>"), None);
        assert_eq!(byte_fallback_byte("<0x0A"), None);
        assert_eq!(byte_fallback_byte("<0x0AB>"), None);
        assert_eq!(byte_fallback_byte("<s>"), None);
    }
}
