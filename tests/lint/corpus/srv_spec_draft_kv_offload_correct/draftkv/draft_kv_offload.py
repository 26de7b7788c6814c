"""Swap-out / swap-in of the draft model's KV cache for preempted requests."""

import logging
import queue
import threading
from typing import Dict, Optional, Tuple

import torch

logger = logging.getLogger(__name__)


class DraftKVOffloader:
    """draft_kv: CUDA tensor [max_reqs, num_layers, 2, max_len, num_heads, head_dim],
    one slot per running request. Host slots mirror the slot shape in pinned memory."""

    def __init__(self, draft_kv: torch.Tensor, num_host_slots: int):
        self.draft_kv = draft_kv
        self.device = draft_kv.device
        self.host_kv = torch.empty((num_host_slots, *draft_kv.shape[1:]), dtype=draft_kv.dtype,
                                   pin_memory=True)
        self.stream = torch.cuda.Stream(self.device)
        self._lock = threading.Lock()
        self._ready: Dict[str, torch.cuda.Event] = {}      # req -> point after its last draft write
        self._completed: Dict[str, torch.cuda.Event] = {}  # req -> offload copy done
        self._requests: "queue.Queue[Optional[Tuple[str, int, int]]]" = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="draft-kv-offload", daemon=True)
        self._thread.start()

    def mark_ready(self, req_id: str) -> None:
        """Compute thread: record where the request's draft KV is final on the current stream."""
        ev = torch.cuda.Event()
        ev.record()
        with self._lock:
            self._ready[req_id] = ev

    def request_offload(self, req_id: str, slot: int, host_slot: int) -> None:
        self._requests.put((req_id, slot, host_slot))

    def _loop(self) -> None:
        torch.cuda.set_device(self.device)
        while True:
            item = self._requests.get()
            if item is None:
                return
            req_id, slot, host_slot = item
            with self._lock:
                ready = self._ready.pop(req_id)
            self.stream.wait_event(ready)
            with torch.cuda.stream(self.stream):
                self.host_kv[host_slot].copy_(self.draft_kv[slot], non_blocking=True)
                done = torch.cuda.Event()
                done.record()
            with self._lock:
                self._completed[req_id] = done
            logger.debug("draft kv of %s -> host slot %d", req_id, host_slot)

    def is_offloaded(self, req_id: str) -> bool:
        with self._lock:
            done = self._completed.get(req_id)
        return done is not None and done.query()

    def restore(self, req_id: str, host_slot: int) -> torch.Tensor:
        """Compute thread: bring a swapped-out request's draft KV back as a new tensor."""
        with self._lock:
            done = self._completed.pop(req_id, None)
        if done is None:
            raise RuntimeError(f"draft KV of {req_id} was never offloaded")
        self.stream.wait_event(done)
        with torch.cuda.stream(self.stream):
            kv = torch.empty(self.host_kv.shape[1:], dtype=self.host_kv.dtype, device=self.device)
            kv.copy_(self.host_kv[host_slot], non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.stream)
        kv.record_stream(torch.cuda.current_stream())
        return kv

    def close(self) -> None:
        self._requests.put(None)
        self._thread.join(timeout=5)
