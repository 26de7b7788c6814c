"""Called by the engine's scheduler when it preempts or resumes a hybrid-model request."""
from typing import Dict

from .state_pool import MambaStatePool, StateShapes
from .swapper import StateSwapper


class HybridStateManager:
    def __init__(self, shapes: StateShapes, max_running: int = 256, max_swapped: int = 1024):
        self.pool = MambaStatePool(shapes, max_running, max_swapped)
        self.swapper = StateSwapper(self.pool)
        self.gpu_slot: Dict[int, int] = {}
        self.host_slot: Dict[int, int] = {}
        self._free_gpu = list(range(max_running))

    def admit(self, req_id: int) -> int:
        slot = self._free_gpu.pop()
        for layer in range(self.pool.shapes.num_layers):
            self.pool.conv[layer][slot].zero_()
            self.pool.ssm[layer][slot].zero_()
        self.gpu_slot[req_id] = slot
        return slot

    def preempt(self, req_id: int) -> None:
        slot = self.gpu_slot.pop(req_id)
        self.host_slot[req_id] = self.swapper.swap_out(req_id, slot)
        self._free_gpu.append(slot)

    def resume(self, req_id: int) -> int:
        slot = self._free_gpu.pop()
        self.swapper.swap_in(req_id, self.host_slot.pop(req_id), slot)
        self.gpu_slot[req_id] = slot
        return slot
