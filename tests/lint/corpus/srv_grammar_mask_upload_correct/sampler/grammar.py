"""Structured output in the shape of vLLM's grammar-bitmask worker: per step, the bitmask and the
bitmask-to-logits mapping are uploaded into persistent GPU buffers on a copy stream, then a kernel
on the compute stream masks the logits. One barrier before the first upload block orders the copy
stream behind the compute stream, whose previous step's masking kernel may still read both
buffers: both uploads follow it in stream order."""

import torch

from .buffers import upload


class GrammarMasker:
    def __init__(self, max_logits, words, device):
        self.bitmask = torch.zeros((max_logits, words), dtype=torch.int32, device=device)
        self.indices = torch.zeros(max_logits, dtype=torch.int32, device=device)
        self.copy_stream = torch.cuda.Stream()

    def apply(self, logits, offsets, request_ids, bitmask):
        if not request_ids:
            return

        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            rows = upload(bitmask, out=self.bitmask[: bitmask.shape[0]])

        mapping = []
        for request_id in request_ids:
            start, end = offsets[request_id]
            mapping.extend(range(start, end))

        with torch.cuda.stream(self.copy_stream):
            host_indices = torch.tensor(mapping, dtype=torch.int32, device="cpu", pin_memory=True)
            indices = self.indices[: len(mapping)].copy_(host_indices, non_blocking=True)

        torch.cuda.current_stream().wait_stream(self.copy_stream)
        mask_logits_kernel(logits, indices, rows)


def mask_logits_kernel(logits, indices, rows):
    logits.index_fill_(0, indices.long(), float("-inf"))
