"""Integrations of gcd with model loops and serving engines.

Each submodule imports its engine lazily and only when imported itself:
``gcd.contrib.transformers`` needs torch and transformers,
``gcd.contrib.vllm`` needs torch (and vLLM to be useful).
"""
