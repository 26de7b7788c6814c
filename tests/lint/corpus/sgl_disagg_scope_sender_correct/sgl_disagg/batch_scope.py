"""Per-batch bookkeeping around a prefill forward: timing for the metrics collector and an
event that marks the point after which the batch's KV pages are complete."""

import time

import torch


class PrefillBatchScope:
    """Used as ``with PrefillBatchScope(batch) as scope:`` around the forward, on the stream
    the forward runs on. ``done_event`` is recorded when the scope closes."""

    def __init__(self, batch):
        self.batch = batch
        self.done_event = torch.cuda.Event()
        self.t_start = 0.0
        self.t_launch = 0.0

    def __enter__(self):
        self.t_start = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.done_event.record()
        self.t_launch = time.perf_counter() - self.t_start
        return False
