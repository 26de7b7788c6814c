"""A device cache of expert weights loaded on demand from pinned host copies.

Loads run on a transfer stream. Before a slot is overwritten, the transfer stream waits for
the event the compute stream recorded after the kernels that last read the slot."""

import torch

from expert_cache.slots import Slot


class ExpertCache:
    def __init__(self, host_experts, num_slots):
        self.host_experts = host_experts  # {(layer, expert): pinned tensor}
        shape = next(iter(host_experts.values())).shape
        self.device = torch.empty((num_slots, *shape), dtype=torch.bfloat16, device="cuda")
        self.slots = [Slot() for _ in range(num_slots)]
        self.where = {}
        self.transfer = torch.cuda.Stream()

    def _victim(self, wanted):
        for index, slot in enumerate(self.slots):
            if slot.key is None or slot.key not in wanted:
                return index
        raise RuntimeError("the working set does not fit in the cache")

    def _load(self, key, index):
        slot = self.slots[index]
        if slot.last_use is not None:
            self.transfer.wait_event(slot.last_use)
        with torch.cuda.stream(self.transfer):
            self.device[index].copy_(self.host_experts[key], non_blocking=True)
            ready = torch.cuda.Event()
            ready.record(self.transfer)
        if slot.key is not None:
            del self.where[slot.key]
        slot.retire(key)
        slot.ready = ready
        self.where[key] = index

    def acquire(self, layer, experts):
        wanted = {(layer, expert) for expert in experts}
        for key in sorted(wanted - self.where.keys()):
            self._load(key, self._victim(wanted))
        current = torch.cuda.current_stream()
        indices = [self.where[key] for key in sorted(wanted)]
        for index in indices:
            if self.slots[index].ready is not None:
                current.wait_event(self.slots[index].ready)
        return self.device[indices], indices

    def mark_used(self, indices):
        done = torch.cuda.current_stream().record_event()
        for index in indices:
            self.slots[index].last_use = done
