"""Optimizer state swapping for sub-groups that do not all fit on the device.

Each sub-group's fp32 master weights and Adam moments live in one pinned host tensor of shape
(3, numel). Two device slots stage them: while sub-group i is updated in slot i % 2, sub-group
i + 1 is swapped into the other slot and sub-group i - 1's result is swapped out of it."""

import torch
from deepspeed.accelerator import get_accelerator

from .utils import fence_after_compute

MASTER, EXP_AVG, EXP_AVG_SQ = 0, 1, 2


class OptimizerStateSwapper:
    def __init__(self, sub_group_sizes, master_weights):
        accel = get_accelerator()
        self.sizes = list(sub_group_sizes)
        self.max_numel = max(self.sizes)
        device = accel.current_device_name()
        self.host_states = []
        for n, master in zip(self.sizes, master_weights):
            state = accel.pin_memory(torch.zeros(3, n, dtype=torch.float32))
            state[MASTER].copy_(master)
            self.host_states.append(state)
        self.device_slots = [torch.empty(3, self.max_numel, dtype=torch.float32, device=device) for _ in range(2)]
        self.swap_in_stream = accel.Stream()
        self.swap_out_stream = accel.Stream()
        self._swapped_in = [accel.Event() for _ in range(2)]
        # a slot's previous tenant is "swapped out" from the start
        self._swapped_out = [self.swap_out_stream.record_event() for _ in range(2)]

    def swap_in(self, i):
        accel = get_accelerator()
        slot, n = i % 2, self.sizes[i]
        # the slot's previous tenant must have been written back before we overwrite it
        self.swap_in_stream.wait_event(self._swapped_out[slot])
        with accel.stream(self.swap_in_stream):
            # expect: KVG004
            self.device_slots[slot][:, :n].copy_(self.host_states[i], non_blocking=True)
            self._swapped_in[slot].record(self.swap_in_stream)

    def acquire(self, i):
        """The device state of sub-group i, once its swap-in has landed (on the compute stream)."""
        slot = i % 2
        get_accelerator().current_stream().wait_event(self._swapped_in[slot])
        return self.device_slots[slot][:, : self.sizes[i]]

    def swap_out(self, i):
        accel = get_accelerator()
        slot, n = i % 2, self.sizes[i]
        fence_after_compute(self.swap_out_stream)
        with accel.stream(self.swap_out_stream):
            self.host_states[i].copy_(self.device_slots[slot][:, :n], non_blocking=True)
            self._swapped_out[slot] = self.swap_out_stream.record_event()

    def synchronize(self):
        self.swap_out_stream.synchronize()
