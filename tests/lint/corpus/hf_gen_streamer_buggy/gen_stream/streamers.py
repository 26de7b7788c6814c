# Copyright 2023 The HuggingFace Inc. team.

import logging
import queue
import threading
from typing import Optional

import torch
from numba import cuda

from .constants import DEFAULT_STREAM_TIMEOUT, STOP_SIGNAL
from .device_copy import allocate_host_ring, copy_tokens_to_host, make_copy_stream, torch_compute_stream

logger = logging.getLogger(__name__)


class BaseStreamer:
    """Base class from which `.generate()` streamers inherit."""

    def put(self, value):
        raise NotImplementedError()

    def end(self):
        raise NotImplementedError()


class AsyncTextIteratorStreamer(BaseStreamer):
    """
    Streamer that copies new tokens to pinned host memory on a side stream and decodes them on a worker thread,
    so that `generate` never blocks on a device-to-host transfer. Iterate over it to get the decoded text.
    """

    def __init__(self, tokenizer, skip_prompt: bool = False, timeout: Optional[float] = DEFAULT_STREAM_TIMEOUT,
                 **decode_kwargs):
        self.tokenizer = tokenizer
        self.skip_prompt = skip_prompt
        self.decode_kwargs = decode_kwargs
        self.timeout = timeout
        self.next_tokens_are_prompt = True
        self.token_cache = []
        self._copy_stream = make_copy_stream()
        self._host_ring = allocate_host_ring()
        self._free_slots: "queue.Queue[int]" = queue.Queue()
        for i in range(len(self._host_ring)):
            self._free_slots.put(i)
        self._pending: "queue.Queue" = queue.Queue()
        self.text_queue: "queue.Queue" = queue.Queue()
        self._decoder = threading.Thread(target=self._decode_loop, name="streamer-decode", daemon=True)
        self._decoder.start()

    def put(self, value: torch.Tensor):
        if value.dim() > 1 and value.shape[0] > 1:
            raise ValueError("AsyncTextIteratorStreamer only supports batch size 1")
        if self.skip_prompt and self.next_tokens_are_prompt:
            self.next_tokens_are_prompt = False
            return
        self.next_tokens_are_prompt = False
        slot = self._free_slots.get()
        ready = cuda.event(timing=False)
        ready.record(stream=self._copy_stream)
        ready.wait(stream=torch_compute_stream())
        done = cuda.event(timing=False)
        done.record(stream=self._copy_stream)
        n = copy_tokens_to_host(value, self._host_ring[slot], self._copy_stream)
        self._pending.put((slot, n, done, value))

    def end(self):
        self._pending.put(STOP_SIGNAL)
        self._decoder.join()

    def _decode_loop(self):
        while True:
            item = self._pending.get()
            if item is STOP_SIGNAL:
                break
            slot, n, done, _ = item
            done.synchronize()
            # expect: KVG003
            self.token_cache.extend(self._host_ring[slot][:n].tolist())
            self._free_slots.put(slot)
            text = self.tokenizer.decode(self.token_cache, **self.decode_kwargs)
            if text.endswith("\n"):
                self.text_queue.put(text)
                self.token_cache = []
            elif len(text) > 0 and not text.endswith("\ufffd"):
                self.text_queue.put(text)
                self.token_cache = []
        if self.token_cache:
            self.text_queue.put(self.tokenizer.decode(self.token_cache, **self.decode_kwargs))
        self.text_queue.put(STOP_SIGNAL)

    def __iter__(self):
        return self

    def __next__(self):
        value = self.text_queue.get(timeout=self.timeout)
        if value is STOP_SIGNAL:
            raise StopIteration()
        return value
