"""NoRepeatNGramLogitsProcessor with a pinned host mirror of the generated ids."""
import torch
from transformers import LogitsProcessor

from .ngram_utils import calc_banned_ngram_tokens


class PinnedNoRepeatNGramLogitsProcessor(LogitsProcessor):
    def __init__(self, ngram_size, batch_size, max_length):
        if ngram_size <= 0:
            raise ValueError(f"`ngram_size` has to be a strictly positive integer, but is {ngram_size}")
        self.ngram_size = ngram_size
        # ids are mirrored into page-locked memory so the copy does not stall the host
        self._host_ids = torch.zeros((batch_size, max_length), dtype=torch.long, pin_memory=True)
        self._ids_ready = torch.cuda.Event()

    def __call__(self, input_ids, scores):
        num_batch_hypotheses, cur_len = input_ids.shape
        mirror = self._host_ids[:num_batch_hypotheses, :cur_len]
        mirror.copy_(input_ids, non_blocking=True)
        self._ids_ready.record()
        scores_processed = scores.clone()
        # the copy is queued behind this step's forward: wait for it before the host reads the ids
        self._ids_ready.synchronize()
        prev_ids = mirror.numpy().tolist()
        banned_batch_tokens = calc_banned_ngram_tokens(self.ngram_size, prev_ids, num_batch_hypotheses, cur_len)
        for i, banned_tokens in enumerate(banned_batch_tokens):
            if banned_tokens:
                scores_processed[i, banned_tokens] = -float("inf")
        return scores_processed
