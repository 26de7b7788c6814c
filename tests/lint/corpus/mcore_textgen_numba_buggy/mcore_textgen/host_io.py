# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import numpy as np
from numba import cuda


class PinnedStepOutputs:
    """Pinned host rows receiving sampled tokens (and their log-probs) step by step."""

    def __init__(self, max_steps: int, batch_size: int, copy_stream):
        self.tokens = cuda.pinned_array((max_steps, batch_size), dtype=np.int64)
        self.log_probs = cuda.pinned_array((max_steps, batch_size), dtype=np.float32)
        self.copy_stream = copy_stream
        self.copied = [None] * max_steps

    def order_after(self, producer_stream) -> None:
        produced = cuda.event(timing=False)
        produced.record(stream=producer_stream)
        produced.wait(stream=self.copy_stream)

    def copy_log_probs(self, step: int, d_log_probs) -> None:
        # expect: KVG001
        d_log_probs.copy_to_host(self.log_probs[step], stream=self.copy_stream)

    def copy_tokens(self, step: int, d_tokens):
        d_tokens.copy_to_host(self.tokens[step], stream=self.copy_stream)
        done = cuda.event(timing=False)
        done.record(stream=self.copy_stream)
        self.copied[step] = done
        return done
