# Copyright 2023 The HuggingFace Inc. team.

# Number of pinned host slots the streamer cycles through.
HOST_RING_SLOTS = 8
# Longest batch of new tokens a single `put` may carry.
MAX_TOKENS_PER_PUT = 1024
# Seconds the consumer blocks on the text queue before raising `queue.Empty`.
DEFAULT_STREAM_TIMEOUT = None
STOP_SIGNAL = None
