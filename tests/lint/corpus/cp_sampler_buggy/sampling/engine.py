"""Decode loop that streams sampled tokens to per-request subscribers."""

import functools
from typing import Callable, Dict, List

import cupy
import numpy

from .config import MAX_BATCH
from .sampler import GreedySampler
from .staging import HostStaging


class DecodeLoop:
    def __init__(self, model: Callable[[List[int]], cupy.ndarray]):
        self.model = model
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.copy_stream = cupy.cuda.Stream(non_blocking=True)
        self.staging = HostStaging(MAX_BATCH)
        self.sampler = GreedySampler(self.staging, self.compute, self.copy_stream)
        self._subscribers: Dict[int, Callable[[int], None]] = {}
        self.logprob_history: Dict[int, List[float]] = {}

    def subscribe(self, request_id: int, callback: Callable[[int], None]) -> None:
        self._subscribers[request_id] = callback
        self.logprob_history[request_id] = []

    def _emit_token(self, slot: int, request_id: int) -> None:
        # expect: KVG003
        token = int(self.staging.tokens[slot])
        self._subscribers[request_id](token)

    def step(self, request_ids: List[int]) -> numpy.ndarray:
        n = len(request_ids)
        with self.compute:
            logits = self.model(request_ids)
        ids, logprobs = self.sampler.sample(logits, n)
        callbacks = [functools.partial(self._emit_token, slot, rid)
                     for slot, rid in enumerate(request_ids)]
        self.sampler.fetch_logprobs(logprobs, n)
        for callback in callbacks:
            callback()
        self.sampler.wait_tokens()
        self.copy_stream.synchronize()
        step_logprobs = self.staging.logprobs[:n].copy()
        for rid, lp in zip(request_ids, step_logprobs.tolist()):
            self.logprob_history[rid].append(lp)
        return step_logprobs
