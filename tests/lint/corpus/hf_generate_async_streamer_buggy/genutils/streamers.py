"""Streamers in the shape of transformers' ``BaseStreamer`` / ``TextIteratorStreamer``.

``generate`` hands every step's new tokens to ``put``. Instead of ``next_tokens.cpu()`` (which
blocks the decode loop once per token) the loop hands over a ``TokenChunk``: a host tensor that a
copy stream is still filling plus the event recorded behind that copy. A background thread turns
the chunks into text and pushes it to an iterator the caller consumes.
"""

import threading
from dataclasses import dataclass, field
from queue import Queue
from typing import Optional

import torch


@dataclass
class TokenChunk:
    step: int
    host_tokens: torch.Tensor
    ready: torch.cuda.Event = field(default_factory=torch.cuda.Event)
    is_prompt: bool = False


class BaseStreamer:
    def put(self, value):
        raise NotImplementedError

    def end(self):
        raise NotImplementedError


class AsyncTextStreamer(BaseStreamer):
    def __init__(self, tokenizer, skip_prompt: bool = True, timeout: Optional[float] = None,
                 **decode_kwargs):
        self.tokenizer = tokenizer
        self.skip_prompt = skip_prompt
        self.timeout = timeout
        self.decode_kwargs = decode_kwargs
        self._chunks: Queue = Queue()
        self.text_queue: Queue = Queue()
        self.stop_signal = None
        self._token_cache: list[int] = []
        self._print_len = 0
        self._worker = threading.Thread(target=self._detokenize_loop, name="detokenizer", daemon=True)
        self._worker.start()

    # called from the generation loop
    def put(self, value: TokenChunk):
        if value.is_prompt and self.skip_prompt:
            return
        self._chunks.put(value)

    def end(self):
        self._chunks.put(None)

    # the detokenizer thread
    def _detokenize_loop(self):
        while True:
            chunk = self._chunks.get()
            if chunk is None:
                break
            # expect: KVG003
            token_ids = chunk.host_tokens.tolist()
            self._token_cache.extend(token_ids if isinstance(token_ids, list) else [token_ids])
            text = self.tokenizer.decode(self._token_cache, **self.decode_kwargs)
            if text.endswith("\n"):
                printable = text[self._print_len:]
                self._token_cache, self._print_len = [], 0
            else:
                printable = text[self._print_len: text.rfind(" ") + 1]
                self._print_len += len(printable)
            if printable:
                self.text_queue.put(printable, timeout=self.timeout)
        tail = self.tokenizer.decode(self._token_cache, **self.decode_kwargs)[self._print_len:]
        if tail:
            self.text_queue.put(tail, timeout=self.timeout)
        self.text_queue.put(self.stop_signal, timeout=self.timeout)

    def __iter__(self):
        return self

    def __next__(self):
        value = self.text_queue.get(timeout=self.timeout)
        if value == self.stop_signal:
            raise StopIteration()
        return value
