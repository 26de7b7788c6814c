"""Maps adapter names to GPU slots and applies the LoRA delta in the forward pass."""
from collections import OrderedDict
from concurrent.futures import Future
from typing import Dict

import torch

from .loader import LoadRequest, SlotLoader
from .store import AdapterStore


class LoRAManager:
    def __init__(self, store: AdapterStore, num_slots: int, rank: int, hidden: int):
        self.store = store
        dev = torch.device("cuda")
        self.lora_a = torch.zeros((num_slots, rank, hidden), dtype=torch.float16, device=dev)
        self.lora_b = torch.zeros((num_slots, hidden, rank), dtype=torch.float16, device=dev)
        self.scaling = torch.zeros(num_slots, dtype=torch.float16, device=dev)
        self.loader = SlotLoader(self.lora_a, self.lora_b)
        self._slot_of: "OrderedDict[str, int]" = OrderedDict()
        self._pending: Dict[str, Future] = {}
        self._free = list(range(num_slots))

    def activate(self, name: str) -> int:
        """Called by the scheduler, on the compute thread, before a batch using `name`."""
        if name in self._slot_of:
            self._slot_of.move_to_end(name)
            return self._slot_of[name]
        if self._free:
            slot = self._free.pop()
        else:
            _, slot = self._slot_of.popitem(last=False)
        last_use = torch.cuda.Event()
        last_use.record()
        adapter = self.store[name]
        self._pending[name] = self.loader.submit(LoadRequest(slot, adapter, last_use))
        self.scaling[slot] = adapter.scaling
        self._slot_of[name] = slot
        return slot

    def apply(self, x: torch.Tensor, y: torch.Tensor, name: str) -> torch.Tensor:
        """y += scaling * (x @ A^T) @ B^T for the rows of a batch that use adapter `name`."""
        fut = self._pending.pop(name, None)
        if fut is not None:
            torch.cuda.current_stream().wait_event(fut.result())
        slot = self._slot_of[name]
        delta = (x @ self.lora_a[slot].t()) @ self.lora_b[slot].t()
        return y.add_(delta * self.scaling[slot])
