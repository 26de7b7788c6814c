"""A dynamic-batching decode step in the shape of Megatron's inference controller: per-request
sampling parameters live on the GPU in the engine's context and are copied into pinned host
buffers without blocking at the start of the step; the host buckets requests by them after the
forward is queued. Bug: ``bucket_requests`` reads the pinned buffers with ``.tolist()`` while
the copies may still be running: the forward only queues kernels and nothing on the host waits
for the stream in between (KVG003 at each read)."""

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
        # expect: KVG003
        temperature = self.host_meta["temperature"][:count].tolist()
        # expect: KVG003
        top_p = self.host_meta["top_p"][:count].tolist()
        buckets = {}
        for index, key in enumerate(zip(temperature, top_p)):
            buckets.setdefault(key, []).append(index)
        return buckets

    def run(self, tokens, count):
        self.stage_metadata()
        logits = self.model(tokens)
        buckets = self.bucket_requests(count)
        return logits, buckets
