"""Sizes for the decode helper."""

RING_SLOTS = 4
MAX_BATCH = 256
HIDDEN_SIZE = 4096
VOCAB_SIZE = 32000
