"""Double-buffered weight streaming: the host copy of every block is one flat pinned tensor, the
device holds two flat slots, and a single background worker issues the host-to-device copies on a
dedicated stream so that the Python side of the copy never stalls the forward."""

import functools
import threading
from concurrent.futures import Future, ThreadPoolExecutor

import torch

NUM_SLOTS = 2


class BlockWeightStreamer:
    def __init__(self, execution_device: torch.device, max_block_numel: int, dtype: torch.dtype):
        self.device = torch.device(execution_device)
        self.dtype = dtype
        self.slots = [torch.empty(max_block_numel, dtype=dtype, device=self.device) for _ in range(NUM_SLOTS)]
        self.host_weights: dict[int, torch.Tensor] = {}
        self.layouts: dict[int, list[tuple[str, torch.Size, int]]] = {}
        self.num_blocks = 0
        self.last_done = -1
        self.h2d_stream = torch.cuda.Stream(device=self.device)
        # recorded on the compute stream after the last kernel that reads a slot was queued
        self.slot_free = {slot: torch.cuda.Event() for slot in range(NUM_SLOTS)}
        self.loaded = {}
        self.pending: dict[int, Future] = {}
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="weight-prefetch")
        self._lock = threading.Lock()

    def slot_of(self, block_idx: int) -> int:
        return block_idx % NUM_SLOTS

    def next_block(self, block_idx: int) -> int:
        return (block_idx + 1) % self.num_blocks

    def register_block(self, block_idx: int, module: torch.nn.Module):
        layout, flat, offset = [], [], 0
        for name, param in module.named_parameters():
            layout.append((name, param.shape, offset))
            flat.append(param.detach().reshape(-1).to(self.dtype))
            offset += param.numel()
        self.host_weights[block_idx] = torch.cat(flat).cpu().pin_memory()
        self.layouts[block_idx] = layout
        self.loaded[block_idx] = torch.cuda.Event()
        self.num_blocks = max(self.num_blocks, block_idx + 1)

    # worker thread
    def _load_block(self, block_idx: int, slot: int):
        host = self.host_weights[block_idx]
        # the block that used this slot before may still be running on the compute stream
        self.h2d_stream.wait_event(self.slot_free[slot])
        with torch.cuda.stream(self.h2d_stream):
            self.slots[slot][: host.numel()].copy_(host, non_blocking=True)
            self.loaded[block_idx].record(self.h2d_stream)
        return block_idx

    # forward thread
    def schedule_prefetch(self, block_idx: int):
        with self._lock:
            if block_idx in self.pending:
                return
            job = functools.partial(self._load_block, block_idx, self.slot_of(block_idx))
            self.pending[block_idx] = self._executor.submit(job)

    def wait_for_block(self, block_idx: int):
        if block_idx not in self.pending:
            self.schedule_prefetch(block_idx)
        with self._lock:
            future = self.pending.pop(block_idx)
        future.result()
        torch.cuda.current_stream(self.device).wait_event(self.loaded[block_idx])

    def bind_block(self, block_idx: int, module: torch.nn.Module):
        slot = self.slots[self.slot_of(block_idx)]
        params = dict(module.named_parameters())
        for name, shape, offset in self.layouts[block_idx]:
            params[name].data = slot.narrow(0, offset, shape.numel()).view(shape)

    def block_done(self, block_idx: int):
        """The forward of ``block_idx`` has been launched on the compute stream."""
        self.last_done = block_idx
        self.slot_free[self.slot_of(block_idx)].record(torch.cuda.current_stream(self.device))

    def shutdown(self):
        self._executor.shutdown(wait=True)
