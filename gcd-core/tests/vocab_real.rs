//! `Vocabulary` against real tokenizers: the three `tokenizer.json` files in
//! `../shared/data/tokenizers` and the tiktoken encodings embedded in
//! tiktoken-rs. Tests that need a missing file skip with a message.
//!
//! Each tokenizer is loaded once per test binary (a `OnceLock`), and the load
//! time is recorded; `load_timings` prints them (run with `--nocapture`).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use gcd_core::vocab::{TokenKind, VocabErrorKind, Vocabulary};

/// The shared tokenizers folder (`None` when the shared data is absent).
fn tokenizers() -> Option<PathBuf> {
    gcd_core::shared_data::path("tokenizers")
}

static TIMINGS: Mutex<Vec<(&'static str, Duration, usize)>> = Mutex::new(Vec::new());

fn timed(name: &'static str, load: impl FnOnce() -> Vocabulary) -> Vocabulary {
    let t = Instant::now();
    let v = load();
    let d = t.elapsed();
    eprintln!("loaded {name}: {} ids in {d:.2?}", v.len());
    TIMINGS.lock().unwrap().push((name, d, v.len()));
    v
}

fn file(dir: &str) -> Option<PathBuf> {
    let p = tokenizers()?.join(dir).join("tokenizer.json");
    if p.exists() {
        Some(p)
    } else {
        eprintln!("SKIP: {} not found (shared data absent)", p.display());
        None
    }
}

macro_rules! cached {
    ($fn:ident, $name:literal, $load:expr) => {
        fn $fn() -> Option<&'static Vocabulary> {
            static CELL: OnceLock<Option<Vocabulary>> = OnceLock::new();
            CELL.get_or_init(|| {
                let load: fn() -> Option<Vocabulary> = $load;
                load()
            })
            .as_ref()
        }
    };
}

cached!(llama3, "llama3", || {
    let p = file("llama3")?;
    Some(timed("llama3", || {
        Vocabulary::from_tokenizer_json(&p).unwrap()
    }))
});
cached!(mistral, "mistral", || {
    let p = file("mistral-7b-v0.1-32k")?;
    Some(timed("mistral-7b-v0.1-32k", || {
        Vocabulary::from_tokenizer_json(&p).unwrap()
    }))
});
cached!(gpt2, "gpt2", || {
    let p = file("gpt2")?;
    Some(timed("gpt2", || {
        Vocabulary::from_tokenizer_json(&p).unwrap()
    }))
});
cached!(o200k, "o200k", || Some(timed("o200k_base", || {
    Vocabulary::o200k_base().unwrap()
})));
cached!(cl100k, "cl100k", || Some(timed("cl100k_base", || {
    Vocabulary::cl100k_base().unwrap()
})));

/// Every available vocabulary, by name.
fn all() -> Vec<&'static Vocabulary> {
    [llama3(), mistral(), gpt2(), o200k(), cl100k()]
        .into_iter()
        .flatten()
        .collect()
}

/// A scratch directory for files written by the error tests.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gcd-vocab-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

#[test]
fn sizes() {
    if let Some(v) = llama3() {
        assert_eq!(v.len(), 128_256);
        assert_eq!(v.name(), "llama3");
    }
    if let Some(v) = mistral() {
        assert_eq!(v.len(), 32_000);
    }
    if let Some(v) = gpt2() {
        assert_eq!(v.len(), 50_257);
    }
    // tiktoken-rs's sizes: one past its highest special token.
    for (v, bpe) in [
        (o200k().unwrap(), tiktoken_rs::o200k_base_singleton()),
        (cl100k().unwrap(), tiktoken_rs::cl100k_base_singleton()),
    ] {
        let max_special = bpe
            .special_tokens()
            .iter()
            .map(|s| bpe.encode_with_special_tokens(s)[0])
            .max()
            .unwrap();
        assert_eq!(v.len(), max_special as usize + 1, "{}", v.name());
    }
    assert_eq!(o200k().unwrap().len(), 200_019);
    assert_eq!(cl100k().unwrap().len(), 100_277);
    // Every rank of the rank file is a Normal token.
    assert_eq!(o200k().unwrap().normal_tokens().count(), 199_998);
    assert_eq!(cl100k().unwrap().normal_tokens().count(), 100_256);
}

const TEXTS: &[&str] = &[
    "Hello, world!",
    r#"{"name": "Ada", "quote": "She said \"hi\" to {\"b\": [1, 2.5e-3, null, true]}", "nested": {"deep": [[], {}]}}"#,
    "line one\nline two\r\n\ttabbed\t\tand  two spaces\n\n   \n",
    "emoji 😀🎉👩‍👩‍👧 and CJK 日本語の文章, 中文, 한국어, Ελληνικά",
    "a literal ▁ char, ▁▁ twice, ▁ at the end▁",
    "▁starts with it",
    " leading space",
    "  two leading spaces",
    "{",
    "",
    "<|endoftext|> <s> </s> <unk> <|begin_of_text|> <|eot_id|> <0x0A>",
    "digits 12345678901234567890 and 3.14159",
    "control \u{0}\u{1}\u{7f} and \u{feff} BOM, ＡＢＣ fullwidth",
];

#[test]
fn round_trip() {
    for v in all() {
        for text in TEXTS {
            let ids = v.encode(text).unwrap();
            assert_eq!(
                v.decode_bytes(&ids).unwrap(),
                text.as_bytes(),
                "{}: {text:?} -> {ids:?}",
                v.name()
            );
            // Text never encodes to control tokens, even text that spells one.
            for &id in &ids {
                assert_eq!(
                    v.kind(id).unwrap(),
                    TokenKind::Normal,
                    "{}: {text:?} has {id}",
                    v.name()
                );
            }
        }
    }
}

#[test]
fn canonical_ids() {
    // Well-known ids of "Hello world" in each tokenizer.
    if let Some(v) = gpt2() {
        assert_eq!(v.encode("Hello world").unwrap(), [15496, 995]);
    }
    if let Some(v) = llama3() {
        assert_eq!(v.encode("Hello world").unwrap(), [9906, 1917]);
    }
    assert_eq!(
        cl100k().unwrap().encode("Hello world").unwrap(),
        [9906, 1917]
    );
    let o = o200k().unwrap();
    assert_eq!(
        o.encode("Hello world").unwrap(),
        tiktoken_rs::o200k_base_singleton().encode_ordinary("Hello world")
    );
    // gpt2's file asks for truncation at 50 tokens: it must not apply.
    if let Some(v) = gpt2() {
        let long = " word".repeat(200);
        assert_eq!(v.encode(&long).unwrap().len(), 200);
    }
}

#[test]
fn mistral_prefix_space() {
    let Some(v) = mistral() else { return };
    // The real tokenizer prepends "▁"; we do not, so "{" stays "{"...
    let ids = v.encode("{\"a\": 1}").unwrap();
    assert_eq!(v.token_bytes(ids[0]).unwrap()[0], b'{');
    // ...and a real leading space is the "▁" prefix of the first token.
    let ids = v.encode(" {").unwrap();
    assert_eq!(v.decode_bytes(&ids).unwrap(), b" {");
    assert_eq!(v.token_bytes(ids[0]).unwrap()[0], b' ');
    let ids = v.encode(" Hello").unwrap();
    assert_eq!(ids.len(), 1, "\" Hello\" is the single token ▁Hello");
    assert_eq!(v.token_bytes(ids[0]).unwrap(), b" Hello");
    // A literal "▁" is spelled with byte-fallback tokens.
    let ids = v.encode("a▁b").unwrap();
    assert!(
        ids.windows(3).any(|w| w == [3 + 0xE2, 3 + 0x96, 3 + 0x81]),
        "{ids:?}"
    );
}

#[test]
fn byte_tokens() {
    if let Some(v) = mistral() {
        // <0x00>..<0xFF> are ids 3..=258.
        for b in 0..=255u32 {
            assert_eq!(v.token_bytes(3 + b).unwrap(), [b as u8]);
            assert_eq!(v.kind(3 + b).unwrap(), TokenKind::Normal);
        }
        assert_eq!(v.token_bytes(13).unwrap(), b"\n"); // <0x0A>
        assert_eq!(v.token_bytes(28705).unwrap(), b" "); // ▁
    }
    for v in [llama3(), gpt2()].into_iter().flatten() {
        // "Ġ" (id 220 in both) is a space, "Ċ" (id 198) a newline.
        assert_eq!(v.token_bytes(220).unwrap(), b" ", "{}", v.name());
        assert_eq!(v.token_bytes(198).unwrap(), b"\n", "{}", v.name());
        // Some tokens are pieces of a UTF-8 character.
        let partial = v
            .normal_tokens()
            .filter(|(_, b)| std::str::from_utf8(b).is_err())
            .count();
        assert!(
            partial > 0,
            "{}: no token is a partial UTF-8 character",
            v.name()
        );
        // Every single byte is a token.
        let singles: HashSet<u8> = v
            .normal_tokens()
            .filter(|(_, b)| b.len() == 1)
            .map(|(_, b)| b[0])
            .collect();
        assert_eq!(singles.len(), 256, "{}", v.name());
    }
    for v in [o200k().unwrap(), cl100k().unwrap()] {
        let singles: HashSet<u8> = v
            .normal_tokens()
            .filter(|(_, b)| b.len() == 1)
            .map(|(_, b)| b[0])
            .collect();
        assert_eq!(singles.len(), 256, "{}", v.name());
        let partial = v
            .normal_tokens()
            .filter(|(_, b)| std::str::from_utf8(b).is_err())
            .count();
        assert!(partial > 0, "{}", v.name());
    }
}

#[test]
fn llama3_extends_cl100k() {
    // Llama-3's first 100,256 BPE tokens are cl100k_base's ranks: two
    // independent spellings (GPT-2 alphabet vs base64) must agree byte for byte.
    let Some(l) = llama3() else { return };
    let c = cl100k().unwrap();
    for id in 0..100_256u32 {
        assert_eq!(
            l.token_bytes(id).unwrap(),
            c.token_bytes(id).unwrap(),
            "id {id}"
        );
    }
}

#[test]
fn specials_and_eos() {
    if let Some(v) = llama3() {
        for id in 128_000..128_256 {
            assert_eq!(v.kind(id).unwrap(), TokenKind::Special, "{id}");
        }
        assert_eq!(v.token_bytes(128_000).unwrap(), b"<|begin_of_text|>");
        assert_eq!(v.normal_tokens().count(), 128_000);
        let mut eos = v.eos_ids().to_vec();
        eos.sort();
        assert_eq!(eos, [128_001, 128_009]);
        assert!(v.is_eos(128_009) && !v.is_eos(128_000));
    }
    if let Some(v) = mistral() {
        for id in 0..3 {
            assert_eq!(v.kind(id).unwrap(), TokenKind::Special);
        }
        assert_eq!(v.token_bytes(2).unwrap(), b"</s>");
        assert_eq!(v.normal_tokens().count(), 31_997);
        assert_eq!(v.eos_ids(), [2]);
    }
    if let Some(v) = gpt2() {
        assert_eq!(v.kind(50_256).unwrap(), TokenKind::Special);
        assert_eq!(v.normal_tokens().count(), 50_256);
        assert_eq!(v.eos_ids(), [50_256]);
    }
    let o = o200k().unwrap();
    assert_eq!(o.eos_ids(), [199_999]);
    assert_eq!(o.kind(200_018).unwrap(), TokenKind::Special); // <|endofprompt|>: not EOS
    assert!(!o.is_eos(200_018));
    assert_eq!(o.kind(199_998).unwrap(), TokenKind::Special); // a hole
    assert_eq!(o.token_bytes(199_998).unwrap(), b"");
    let c = cl100k().unwrap();
    assert_eq!(c.eos_ids(), [100_257]);
    assert_eq!(c.token_bytes(100_276).unwrap(), b"<|endofprompt|>");
    assert_eq!(c.kind(100_256).unwrap(), TokenKind::Special); // a hole
}

#[test]
fn set_eos_ids_validates() {
    let mut v = cl100k().unwrap().clone();
    assert_eq!(
        v.set_eos_ids(vec![100_277]).unwrap_err().kind(),
        VocabErrorKind::IdOutOfRange
    );
    assert_eq!(v.eos_ids(), [100_257]);
    v.set_eos_ids(vec![100_276, 100_257]).unwrap();
    assert!(v.is_eos(100_276));
    assert_eq!(
        cl100k().unwrap().eos_ids(),
        [100_257],
        "the clone is independent"
    );
}

#[test]
fn load_specs() {
    let v = Vocabulary::load("cl100k").unwrap();
    assert_eq!(v.name(), "cl100k_base");
    assert_eq!(v.fingerprint(), cl100k().unwrap().fingerprint());
    assert_eq!(Vocabulary::load("O200K_BASE").unwrap().len(), 200_019);
    if let Some(g) = gpt2() {
        // A directory holding a tokenizer.json.
        let dir = tokenizers().expect("gpt2 was found there").join("gpt2");
        let v = Vocabulary::load(dir.to_str().unwrap()).unwrap();
        assert_eq!(v.fingerprint(), g.fingerprint());
    }
}

#[test]
fn tiktoken_file_of_a_known_encoding() {
    // Write cl100k_base's ranks as a .tiktoken file: it is recognized, so it
    // gets cl100k's regex, specials and EOS.
    let c = cl100k().unwrap();
    let mut text = String::new();
    for (id, b) in c.normal_tokens() {
        text.push_str(&format!("{} {id}\n", base64(b)));
    }
    let path = scratch("cl100k_copy.tiktoken");
    std::fs::write(&path, &text).unwrap();
    let v = Vocabulary::load(path.to_str().unwrap()).unwrap();
    assert_eq!(v.name(), "cl100k_copy");
    assert_eq!(v.fingerprint(), c.fingerprint());
    assert_eq!(v.eos_ids(), [100_257]);
    for t in TEXTS {
        assert_eq!(v.encode(t).unwrap(), c.encode(t).unwrap());
    }

    // The same ranks minus one: unknown, so bytes but no encoder.
    let path = scratch("truncated.tiktoken");
    let cut: String = text.lines().take(1000).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, cut).unwrap();
    let v = Vocabulary::from_tiktoken_file(&path).unwrap();
    assert_eq!(v.len(), 1000);
    assert_eq!(v.token_bytes(999).unwrap(), c.token_bytes(999).unwrap());
    assert_eq!(
        v.encode("hi").unwrap_err().kind(),
        VocabErrorKind::NoEncoder
    );
    assert!(v.eos_ids().is_empty());
}

#[test]
fn bad_files_are_errors() {
    let check = |name: &str, content: &[u8], kind: VocabErrorKind| {
        let path = scratch(name);
        std::fs::write(&path, content).unwrap();
        let err = Vocabulary::load(path.to_str().unwrap()).unwrap_err();
        assert_eq!(err.kind(), kind, "{name}: {err}");
        let msg = err.to_string();
        assert!(
            msg.contains(&path.display().to_string()),
            "message names the file: {msg}"
        );
        eprintln!("{name}: {msg}");
    };
    check(
        "not_a_tokenizer.json",
        br#"{"hello": [1, 2, 3]}"#,
        VocabErrorKind::NotATokenizer,
    );
    check("array.json", b"[1, 2, 3]", VocabErrorKind::NotATokenizer);
    let junk: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    check("junk.bin", &junk, VocabErrorKind::NotATokenizer);
    check("junk.tiktoken", &junk, VocabErrorKind::NotATokenizer);
    check("empty.json", b"", VocabErrorKind::NotATokenizer);
    check(
        "bad_line.tiktoken",
        b"IQ== 0\nIg== 1\nnot base64! 2\n",
        VocabErrorKind::Malformed,
    );
    check(
        "bad_rank.tiktoken",
        b"IQ== 0\nIg== one\n",
        VocabErrorKind::Malformed,
    );
    check(
        "dup_rank.tiktoken",
        b"IQ== 0\nIg== 0\n",
        VocabErrorKind::Malformed,
    );
    check(
        "prose.tiktoken",
        b"this is not a rank file\n",
        VocabErrorKind::NotATokenizer,
    );
    check(
        "unigram.json",
        br#"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
            "normalizer":null,"pre_tokenizer":null,"post_processor":null,"decoder":null,
            "model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0.0],["a",-1.0]],"byte_fallback":false}}"#,
        VocabErrorKind::UnsupportedTokenizer,
    );
    let err = Vocabulary::load(scratch("missing.json").to_str().unwrap()).unwrap_err();
    assert_eq!(err.kind(), VocabErrorKind::Io);

    // Ids out of range on a real vocabulary.
    let v = cl100k().unwrap();
    assert_eq!(
        v.token_bytes(100_277).unwrap_err().kind(),
        VocabErrorKind::IdOutOfRange
    );
    assert_eq!(
        v.kind(u32::MAX).unwrap_err().kind(),
        VocabErrorKind::IdOutOfRange
    );
    assert_eq!(
        v.decode_bytes(&[1, 100_277]).unwrap_err().kind(),
        VocabErrorKind::IdOutOfRange
    );
    if let Some(l) = llama3() {
        let err = l.token_bytes(128_256).unwrap_err();
        assert_eq!(err.kind(), VocabErrorKind::IdOutOfRange);
        assert!(err.to_string().contains("128256"), "{err}");
    }
}

/// A SentencePiece-style BPE tokenizer with byte fallback, written here:
/// `<unk>`, `<s>`, `</s>`, the byte tokens `<0x00>`..`<0xFF>` (but
/// `without_byte`), then `▁` and a few pieces; `unk_token` as given.
fn tiny_sentencepiece(without_byte: Option<u32>, unk: &str) -> String {
    let mut vocab = vec![
        ("<unk>".to_string(), 0),
        ("<s>".to_string(), 1),
        ("</s>".to_string(), 2),
    ];
    vocab.extend(
        (0..256)
            .filter(|&b| Some(b) != without_byte)
            .map(|b| (format!("<0x{b:02X}>"), 3 + b)),
    );
    for (i, piece) in ["▁", "a", "b", "▁a", "ab", "▁ab"].iter().enumerate() {
        vocab.push((piece.to_string(), 259 + i as u32));
    }
    let vocab: serde_json::Map<String, serde_json::Value> =
        vocab.into_iter().map(|(k, v)| (k, v.into())).collect();
    let special = |id: u32, content: &str| {
        serde_json::json!({"id": id, "content": content, "single_word": false, "lstrip": false,
                           "rstrip": false, "normalized": false, "special": true})
    };
    serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [special(0, "<unk>"), special(1, "<s>"), special(2, "</s>")],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "▁"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
        "pre_tokenizer": null, "post_processor": null, "decoder": null,
        "model": {"type": "BPE", "dropout": null, "unk_token": unk,
                  "continuing_subword_prefix": null, "end_of_word_suffix": null,
                  "fuse_unk": true, "byte_fallback": true, "ignore_merges": false,
                  "vocab": vocab, "merges": ["▁ a", "a b", "▁a b"]}
    })
    .to_string()
}

#[test]
fn byte_fallback_on_a_tokenizer_built_here() {
    let path = scratch("tiny_sp.json");
    std::fs::write(&path, tiny_sentencepiece(None, "<unk>")).unwrap();
    let v = Vocabulary::from_tokenizer_json(&path).unwrap();
    assert_eq!(v.len(), 265);
    for b in 0..=255u32 {
        assert_eq!(v.token_bytes(3 + b).unwrap(), [b as u8]);
        assert_eq!(v.kind(3 + b).unwrap(), TokenKind::Normal);
    }
    assert_eq!(v.token_bytes(259).unwrap(), b" ", "▁ is a space");
    assert_eq!(v.token_bytes(264).unwrap(), b" ab");
    assert_eq!(v.kind(0).unwrap(), TokenKind::Special);
    assert_eq!(v.eos_ids(), [2]);
    // Known pieces merge; characters the vocabulary lacks fall back to
    // their UTF-8 bytes; no prefix space is inserted.
    assert_eq!(v.encode("ab").unwrap(), [263]);
    assert_eq!(v.encode(" ab").unwrap(), [264]);
    let ids = v.encode("aé").unwrap();
    assert_eq!(ids, [260, 3 + 0xC3, 3 + 0xA9]);
    assert_eq!(v.decode_bytes(&ids).unwrap(), "aé".as_bytes());
    for text in ["a b ab", " é", "ba", "▁"] {
        let ids = v.encode(text).unwrap();
        assert_eq!(v.decode_bytes(&ids).unwrap(), text.as_bytes(), "{text:?}");
    }
}

/// A byte the fallback lacks needs the unknown token; when the file names
/// one it does not have, encoding fails, with its own kind.
#[test]
fn encoding_failures_are_encode_errors() {
    let path = scratch("tiny_sp_no_unk.json");
    std::fs::write(&path, tiny_sentencepiece(Some(0xA9), "<missing>")).unwrap();
    let v = Vocabulary::from_tokenizer_json(&path).unwrap();
    assert_eq!(v.encode("ab").unwrap(), [263]);
    let err = v.encode("aé").unwrap_err();
    assert_eq!(err.kind(), VocabErrorKind::Encode, "{err}");
    assert!(
        err.to_string().contains("tiny_sp_no_unk"),
        "names the tokenizer: {err}"
    );
}

#[test]
fn shared_across_threads() {
    let v: Vec<Arc<Vocabulary>> = all().into_iter().map(|v| Arc::new(v.clone())).collect();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let v = v.clone();
            std::thread::spawn(move || {
                for v in &v {
                    let t = TEXTS[i % TEXTS.len()];
                    assert_eq!(v.decode_bytes(&v.encode(t).unwrap()).unwrap(), t.as_bytes());
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn load_timings() {
    let loaded = all();
    let mut t = TIMINGS.lock().unwrap().clone();
    t.sort_by_key(|x| x.0);
    // Every vocabulary loaded was timed once, with the size it has.
    assert_eq!(t.len(), loaded.len(), "{t:?}");
    for v in &loaded {
        assert!(
            t.iter().any(|&(_, _, n)| n == v.len()),
            "{} ({} ids) has no timing",
            v.name(),
            v.len()
        );
    }
    // The embedded vocabularies need no shared data.
    assert!(
        t.iter().any(|x| x.0 == "o200k_base" && x.2 == 200_019),
        "{t:?}"
    );
    for (name, d, n) in t {
        println!(
            "load {name:>20}: {n:>7} ids  {:>8.1} ms",
            d.as_secs_f64() * 1e3
        );
    }
}

/// A rank file whose one rank is huge is refused at once, by name, instead
/// of allocating a table indexed by it (found by the tokenizer_file fuzz
/// target: 43 bytes asked for over 2 GB).
#[test]
fn huge_ids_are_refused_not_allocated() {
    let e = Vocabulary::from_tiktoken_bytes(b"YQ== 0\nYg== 4000000000\n", "huge").unwrap_err();
    assert_eq!(e.kind(), gcd_core::vocab::VocabErrorKind::Malformed);
    assert!(e.to_string().contains("ids span 0..4000000001"), "{e}");
    // Nearly contiguous ids with gaps still load.
    let v = Vocabulary::from_tiktoken_bytes(b"YQ== 0\nYg== 7\n", "gaps").unwrap();
    assert_eq!(v.len(), 8);
}
