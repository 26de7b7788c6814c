"""A no-repeat-ngram logits processor for transformers' generation loop that keeps a pinned
host mirror of ``input_ids`` (filled with a non-blocking copy each step) instead of calling
``input_ids.tolist()``, plus the greedy loop that uses it."""
