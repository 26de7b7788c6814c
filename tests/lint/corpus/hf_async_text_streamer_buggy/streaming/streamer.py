import queue
import threading
import time
from dataclasses import dataclass

import torch


@dataclass
class PendingToken:
    slot: int
    ready: torch.cuda.Event
    final: bool = False


class AsyncTextIteratorStreamer:
    """Yields decoded text as ``generate`` produces tokens (batch size 1, like the streamers in
    transformers). ``put`` runs on the generation thread; decoding runs on a daemon thread."""

    def __init__(self, tokenizer, skip_prompt=True, num_slots=8, poll_interval=5e-5, timeout=None, **decode_kwargs):
        self.tokenizer = tokenizer
        self.skip_prompt = skip_prompt
        self.poll_interval = poll_interval
        self.timeout = timeout
        self.decode_kwargs = decode_kwargs
        self.next_tokens_are_prompt = True

        self.host_slots = torch.empty((num_slots, 1), dtype=torch.long, pin_memory=True)
        self.free_slots = queue.Queue()
        for i in range(num_slots):
            self.free_slots.put(i)
        self.token_queue = queue.Queue()
        self.text_queue = queue.Queue()
        self.stop_signal = None

        self.token_cache = []
        self.print_len = 0
        self._decoder = threading.Thread(target=self._decode_loop, name="streamer-decode", daemon=True)
        self._decoder.start()

    # -- generation thread -------------------------------------------------------------------
    def put(self, value):
        if value.dim() > 1:
            if value.shape[0] > 1:
                raise ValueError("AsyncTextIteratorStreamer only supports batch size 1")
            value = value[0]
        if self.skip_prompt and self.next_tokens_are_prompt:
            self.next_tokens_are_prompt = False
            return
        slot = self.free_slots.get()
        self.host_slots[slot].copy_(value[-1:], non_blocking=True)
        ready = torch.cuda.Event()
        ready.record()
        self.token_queue.put(PendingToken(slot, ready))

    def end(self):
        self.token_queue.put(None)

    # -- decode thread -----------------------------------------------------------------------
    def _wait(self, pending):
        if not pending.ready.query():
            time.sleep(self.poll_interval)

    def _decode_loop(self):
        while True:
            pending = self.token_queue.get()
            if pending is None:
                self._flush()
                break
            self._wait(pending)
            # expect: KVG003
            token_id = int(self.host_slots[pending.slot, 0])
            self.free_slots.put(pending.slot)
            self.token_cache.append(token_id)
            text = self.tokenizer.decode(self.token_cache, **self.decode_kwargs)
            if text.endswith("\n"):
                printable = text[self.print_len :]
                self.token_cache = []
                self.print_len = 0
            elif len(text) > 0 and _is_cjk(ord(text[-1])):
                printable = text[self.print_len :]
                self.print_len += len(printable)
            else:
                printable = text[self.print_len : text.rfind(" ") + 1]
                self.print_len += len(printable)
            if printable:
                self.text_queue.put(printable)

    def _flush(self):
        if self.token_cache:
            text = self.tokenizer.decode(self.token_cache, **self.decode_kwargs)
            self.text_queue.put(text[self.print_len :])
        self.token_cache = []
        self.print_len = 0
        self.text_queue.put(self.stop_signal)

    # -- consumer ----------------------------------------------------------------------------
    def __iter__(self):
        return self

    def __next__(self):
        value = self.text_queue.get(timeout=self.timeout)
        if value == self.stop_signal:
            raise StopIteration()
        return value


def _is_cjk(cp):
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0xF900 <= cp <= 0xFAFF
    )
