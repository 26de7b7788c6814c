"""Optimizer-state swapper: after each sub-group's step its fp32 master weights and Adam
moments go out to NVMe, so that only one sub-group's state is on the device at a time."""

from .base import AsyncTensorSwapperBase


class OptimizerStateSwapper(AsyncTensorSwapperBase):
    def __init__(self, aio_handle, swap_folder, numel, num_buffers):
        super().__init__(aio_handle, numel, num_buffers)
        self.swap_folder = swap_folder
        self.swapped_groups = set()

    def _begin_swap_out(self):
        self.swap_out_calls += 1

    def _paths(self, group_id, names):
        return [f"{self.swap_folder}/group{group_id}_{name}.swp" for name in names]

    def swap_out_group(self, group_id, state):
        names = sorted(state)
        self.swap_out([state[n] for n in names], self._paths(group_id, names))
        self.swapped_groups.add(group_id)
