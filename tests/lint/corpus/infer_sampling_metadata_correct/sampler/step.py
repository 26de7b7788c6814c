"""A dynamic-batching decode step in the shape of Megatron's inference controller: per-request
sampling parameters live on the GPU in the engine's context and are copied into pinned host
buffers without blocking at the start of the step; the host buckets requests by them after the
forward. Before bucketing, the step reads the finished sequences' lengths back with a blocking
``.tolist()`` of a tensor the context keeps; the code does not show where that tensor lives,
so whether that read waited for the copies is uncertain, and an uncertain finding is not
reported by default."""

import torch

SAMPLING_FIELDS = ("temperature", "top_p")


class DecodeStep:
    def __init__(self, model, context, max_requests):
        self.model = model
        self.context = context
        self.host_meta = {}
        for name in SAMPLING_FIELDS:
            self.host_meta[name] = torch.empty(max_requests, dtype=torch.float32, pin_memory=True)

    def stage_metadata(self):
        for name in SAMPLING_FIELDS:
            self.host_meta[name].copy_(self.context.metadata[name], non_blocking=True)

    def bucket_requests(self, count):
        temperature = self.host_meta["temperature"][:count].tolist()
        top_p = self.host_meta["top_p"][:count].tolist()
        buckets = {}
        for index, key in enumerate(zip(temperature, top_p)):
            buckets.setdefault(key, []).append(index)
        return buckets

    def run(self, tokens, count):
        self.stage_metadata()
        logits = self.model(tokens)
        lengths = self.context.sequence_lengths[:count].tolist()
        buckets = self.bucket_requests(count)
        return logits, buckets, lengths
