import ctypes
import logging
import queue
from collections import deque
from typing import Deque, List

import numpy as np

from ._cudart import StreamFence, check, cudaHostFn_t, cudaStream_t, cudart
from .constants import (SNAPSHOT_SLOTS, cudaHostAllocDefault, cudaMemcpyDeviceToHost,
                        cudaStreamNonBlocking)

logger = logging.getLogger("tensorrt_llm")


def _issue_copy(dst: int, src: int, nbytes: int, stream) -> None:
    check(cudart.cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync")


class ExpertLoadReadback:
    """Copies per-expert token counts to pinned host slots off the critical path."""

    def __init__(self, num_layers: int, num_experts: int):
        self.shape = (num_layers, num_experts)
        self.nbytes = num_layers * num_experts * 4
        self._stream = cudaStream_t()
        check(cudart.cudaStreamCreateWithFlags(ctypes.byref(self._stream),
                                               cudaStreamNonBlocking),
              "cudaStreamCreateWithFlags")
        self._fence = StreamFence()
        self._reuse_fence = StreamFence()
        self._slots: List[np.ndarray] = []
        self._slot_ptrs: List[int] = []
        for _ in range(SNAPSHOT_SLOTS):
            ptr = ctypes.c_void_p()
            check(cudart.cudaHostAlloc(ctypes.byref(ptr), self.nbytes, cudaHostAllocDefault),
                  "cudaHostAlloc")
            raw = (ctypes.c_int32 * (num_layers * num_experts)).from_address(ptr.value)
            self._slots.append(np.ctypeslib.as_array(raw).reshape(self.shape))
            self._slot_ptrs.append(ptr.value)
        self._free: "queue.SimpleQueue[int]" = queue.SimpleQueue()
        for slot in range(SNAPSHOT_SLOTS):
            self._free.put(slot)
        self._inflight: Deque[int] = deque()
        self.completed: "queue.Queue[int]" = queue.Queue()
        self._host_fn = cudaHostFn_t(self._on_landed)

    def _on_landed(self, _user_data) -> None:
        self.completed.put(self._inflight.popleft())

    def view(self, slot: int) -> np.ndarray:
        return self._slots[slot]

    def release(self, slot: int) -> None:
        self._free.put(slot)

    def snapshot(self, counters_ptr: int, producer_stream: int) -> bool:
        try:
            slot = self._free.get_nowait()
        except queue.Empty:
            logger.debug("expert load snapshot skipped, no free slot")
            return False
        self._fence.mark(producer_stream)
        self._fence.join(self._stream)
        _issue_copy(self._slot_ptrs[slot], counters_ptr, self.nbytes, self._stream)
        self._reuse_fence.mark(self._stream)
        self._reuse_fence.join(producer_stream)
        self._inflight.append(slot)
        check(cudart.cudaLaunchHostFunc(self._stream, self._host_fn, None),
              "cudaLaunchHostFunc")
        return True
