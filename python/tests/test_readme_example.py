"""The README's example, kept runnable (same code, wrapped in a test)."""

from __future__ import annotations


def test_readme_example():
    import json
    import numpy as np
    import gcd

    vocab = gcd.Vocabulary.load("o200k")                     # or a tokenizer.json / model dir
    schema = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 20},
              "temp_c": {"type": "number"}}, "required": ["city", "temp_c"]}
    grammar = gcd.Grammar.from_json_schema(schema, vocab)     # compile once, share across requests
    matcher = grammar.matcher(budget=64)                      # one per request
    bitmask = gcd.allocate_token_bitmask(1, vocab.size)       # int32, shape (1, ceil(V/32))
    rng = np.random.default_rng(0)
    while not matcher.is_finished():
        logits = rng.standard_normal((1, vocab.size)).astype(np.float32)  # your model here
        matcher.fill_next_token_bitmask(bitmask, 0)
        gcd.apply_token_bitmask_inplace(logits, bitmask)
        matcher.advance(int(np.argmax(logits[0])))
    value = json.loads(matcher.output)

    assert set(value) == {"city", "temp_c"}
    assert isinstance(value["city"], str) and len(value["city"]) <= 20
    assert isinstance(value["temp_c"], (int, float))
    assert len(matcher.tokens) <= 65
