//! The direct table read against the tokenizers crate, and bad files.
use super::*;

#[test]
fn tiny_tokenizer_json_from_memory() {
    // A byte-level BPE with a special token and a hole (id 4). The
    // special is in the model vocab too, as in GPT-2: tokenizers gives
    // an added token its model id, or else the next free one.
    let json = r#"{
      "version": "1.0", "truncation": null, "padding": null,
      "added_tokens": [{"id": 6, "content": "<|endoftext|>", "single_word": false,
        "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
      "normalizer": null,
      "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
      "post_processor": null,
      "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
      "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
        "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false,
        "vocab": {"a": 0, "Ġ": 1, "Ġa": 2, "b": 3, "c": 5, "<|endoftext|>": 6}, "merges": ["Ġ a"]}
    }"#;
    let v = Vocabulary::from_tokenizer_json_bytes(json.as_bytes(), "tiny").unwrap();
    assert_eq!(v.len(), 7);
    assert_eq!(v.token_bytes(2).unwrap(), b" a");
    assert_eq!(v.kind(4).unwrap(), TokenKind::Special);
    assert_eq!(v.token_bytes(4).unwrap(), b"");
    assert_eq!(v.kind(6).unwrap(), TokenKind::Special);
    assert_eq!(v.token_bytes(6).unwrap(), b"<|endoftext|>");
    assert_eq!(v.eos_ids(), [6]);
    // add_prefix_space is switched off: "a" stays "a".
    assert_eq!(v.encode("a").unwrap(), [0]);
    assert_eq!(v.encode(" a").unwrap(), [2]);
    // Special text is not a special token when encoding.
    let ids = v.encode("<|endoftext|>");
    assert!(ids.is_err() || !ids.unwrap().contains(&6));
}

/// Loads `data` both ways: the table read directly (tokenizer built on
/// first encode) and everything through the tokenizers crate.
fn both_ways(data: &[u8], name: &str, hints: &EosHints) -> (Vocabulary, Vocabulary) {
    let direct = load_table_only(data, name, name, hints)
        .unwrap()
        .expect("read directly");
    let through = load_through_tokenizer(data, name, name.to_string(), hints).unwrap();
    (direct, through)
}

fn assert_same(direct: &Vocabulary, through: &Vocabulary, texts: &[&str]) {
    assert_eq!(direct.len(), through.len());
    for id in 0..direct.len() as u32 {
        assert_eq!(
            direct.token_bytes(id).unwrap(),
            through.token_bytes(id).unwrap(),
            "id {id}"
        );
        assert_eq!(
            direct.kind(id).unwrap(),
            through.kind(id).unwrap(),
            "id {id}"
        );
    }
    assert_eq!(direct.eos_ids(), through.eos_ids());
    assert_eq!(direct.fingerprint(), through.fingerprint());
    let lazy = |v: &Vocabulary| match v.encoder.as_deref() {
        Some(Encoder::HfLazy(l)) => l.built.get().is_some(),
        _ => panic!("not lazy"),
    };
    assert!(
        !lazy(direct),
        "no tokenizer is built before the first encode"
    );
    for t in texts {
        assert_eq!(
            direct.encode(t).unwrap(),
            through.encode(t).unwrap(),
            "{t:?}"
        );
    }
    assert!(lazy(direct));
}

const TEXTS: &[&str] = &[
    "",
    "{\"a\": [1, 2.5e-3, null], \"b\": \"é ▁ \\u00e9\"}",
    " leading space and  two",
    "<|endoftext|><|eot_id|></s><s>[INST]",
    "日本語のテキスト 🦀 \t\n\r\n  ",
    "▁▁x ▁",
    "fn main() { println!(\"hi\"); }",
];

#[test]
fn the_direct_table_is_the_tokenizers_crate_table_on_real_files() {
    let Some(root) = crate::shared_data::path("tokenizers") else {
        return;
    };
    let Ok(dirs) = std::fs::read_dir(&root) else {
        eprintln!("SKIP: no shared tokenizers at {}", root.display());
        return;
    };
    let mut seen = 0;
    for dir in dirs.flatten() {
        let path = dir.path().join("tokenizer.json");
        let Ok(data) = std::fs::read(&path) else {
            continue;
        };
        let hints = EosHints::read(&dir.path());
        let name = path.display().to_string();
        let (direct, through) = both_ways(&data, &name, &hints);
        assert_same(&direct, &through, TEXTS);
        seen += 1;
    }
    assert!(seen >= 3, "expected gpt2, llama3 and mistral, found {seen}");
}

#[test]
fn added_ids_the_file_states_differently_go_through_the_tokenizers_crate() {
    // `<|x|>` is not in the model, so the tokenizers crate gives it id 6
    // (the model's size) whatever the file says.
    let json = |id: u32| {
        format!(
            r#"{{"added_tokens": [{{"id": {id}, "content": "<|x|>", "single_word": false,
              "lstrip": false, "rstrip": false, "normalized": false, "special": true}}],
              "normalizer": null, "pre_tokenizer": {{"type": "ByteLevel", "add_prefix_space": false,
              "trim_offsets": true, "use_regex": true}}, "post_processor": null,
              "decoder": {{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}},
              "model": {{"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
              "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false,
              "vocab": {{"a": 0, "Ġ": 1, "Ġa": 2, "b": 3, "c": 4, "d": 5}}, "merges": ["Ġ a"]}}}}"#
        )
    };
    let hints = EosHints::default();
    let (direct, through) = both_ways(json(6).as_bytes(), "agree", &hints);
    assert_same(&direct, &through, &["a b", " a<|x|>"]);
    assert_eq!(direct.token_bytes(6).unwrap(), b"<|x|>");
    let stated = json(9);
    assert!(load_table_only(stated.as_bytes(), "s", "s", &hints)
        .unwrap()
        .is_none());
    let v = Vocabulary::from_tokenizer_json_bytes(stated.as_bytes(), "s").unwrap();
    assert_eq!(v.len(), 7);
    assert_eq!(v.token_bytes(6).unwrap(), b"<|x|>");
}

#[test]
fn bad_inputs_are_errors() {
    let k = |r: Result<Vocabulary>| r.unwrap_err().kind();
    assert_eq!(
        k(Vocabulary::from_tokenizer_json_bytes(b"\x00\xff junk", "j")),
        VocabErrorKind::NotATokenizer
    );
    assert_eq!(
        k(Vocabulary::from_tokenizer_json_bytes(b"{\"a\": 1}", "j")),
        VocabErrorKind::NotATokenizer
    );
    assert_eq!(
        k(Vocabulary::from_tokenizer_json_bytes(b"[1,2]", "j")),
        VocabErrorKind::NotATokenizer
    );
    let wp = br###"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
        "normalizer":null,"pre_tokenizer":null,"post_processor":null,"decoder":null,
        "model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",
        "max_input_chars_per_word":100,"vocab":{"[UNK]":0,"a":1}}}"###;
    let e = Vocabulary::from_tokenizer_json_bytes(wp, "wp").unwrap_err();
    assert_eq!(e.kind(), VocabErrorKind::UnsupportedTokenizer);
    assert!(e.to_string().contains("WordPiece"), "{e}");
    let alien = br#"{"model":{"type":"Quantum","vocab":{}}}"#;
    let e = Vocabulary::from_tokenizer_json_bytes(alien, "q").unwrap_err();
    assert_eq!(e.kind(), VocabErrorKind::UnsupportedTokenizer);
    assert!(e.to_string().contains("Quantum"), "{e}");
    assert_eq!(
        k(Vocabulary::load("/nonexistent/dir/tokenizer.json")),
        VocabErrorKind::Io
    );
    assert_eq!(k(Vocabulary::load("o300k")), VocabErrorKind::Io);
}
