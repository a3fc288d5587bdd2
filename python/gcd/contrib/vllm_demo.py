"""Runs vLLM with gcd as its structured-output backend and makes one request.

    python -m gcd.contrib.vllm_demo --model DIR [--schema FILE] [--prompt TEXT]

DIR is a local model directory (config, weights, tokenizer.json) that vLLM
can load; a GPU build of vLLM is needed (``pip install vllm``). Not run in
gcd's CI, which has no GPU; ``tests/test_vllm_backend.py`` tests the backend
through vLLM's interface instead.

vLLM (0.34.0) chooses its structured-output backend from a fixed list of
names and has no registry for another one, so this recipe runs the engine
core in this process (``VLLM_ENABLE_V1_MULTIPROCESSING=0``) and gives its
``StructuredOutputManager`` a ``GcdBackend`` before the first structured
request (``gcd.contrib.vllm.install``); the manager then compiles and drives
every structured request with gcd. vLLM still checks each request in its
front end with the backend named in ``structured_outputs_config`` (here
xgrammar, vLLM's default) before gcd sees it, so a schema that backend
refuses is refused there.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Optional, Sequence

DEFAULT_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 40},
        "temperature_c": {"type": "number", "minimum": -90, "maximum": 60},
        "conditions": {"enum": ["sunny", "cloudy", "rain", "snow"]},
    },
    "required": ["city", "temperature_c", "conditions"],
    "additionalProperties": False,
}


def use_gcd_backend() -> None:
    """Makes every vLLM StructuredOutputManager in this process use gcd."""
    from vllm.v1.structured_output import StructuredOutputManager

    from gcd.contrib import vllm as gv

    if getattr(StructuredOutputManager, "_gcd_installed", False):
        return
    original = StructuredOutputManager.grammar_init

    def grammar_init(self, request):  # type: ignore[no-untyped-def]
        if self.backend is None and request.structured_output_request is not None:
            gv.install(self)
        return original(self, request)

    StructuredOutputManager.grammar_init = grammar_init
    StructuredOutputManager._gcd_installed = True


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gcd.contrib.vllm_demo", description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="local model directory for vLLM")
    ap.add_argument("--schema", help="JSON Schema file (default: a small weather object)")
    ap.add_argument("--prompt", default="The weather in Paris right now, as JSON:")
    ap.add_argument("--max-tokens", type=int, default=200)
    ap.add_argument("--check-backend", default="xgrammar", help="vLLM's front-end validator (xgrammar or guidance)")
    args = ap.parse_args(argv)

    schema = DEFAULT_SCHEMA
    if args.schema:
        with open(args.schema, encoding="utf-8") as f:
            schema = json.load(f)

    os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"  # the engine core in this process
    try:
        from vllm import LLM, SamplingParams
        from vllm.sampling_params import StructuredOutputsParams
    except ImportError as e:
        print(f"vLLM is not importable here ({e}); install a GPU build of vllm", file=sys.stderr)
        return 2
    use_gcd_backend()

    llm = LLM(model=args.model, structured_outputs_config={"backend": args.check_backend})
    params = SamplingParams(
        max_tokens=args.max_tokens,
        temperature=0.7,
        structured_outputs=StructuredOutputsParams(json=json.dumps(schema)),
    )
    out = llm.generate([args.prompt], params)[0].outputs[0]
    print(out.text)
    value = json.loads(out.text)  # gcd's masks make this parse
    print(json.dumps(value, indent=2))
    try:
        import jsonschema

        jsonschema.validate(value, schema)
        print("valid for the schema")
    except ImportError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
