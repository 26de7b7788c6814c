"""Leader side: which host slots hold which block hashes, and what each step moves."""

from collections import OrderedDict
from typing import Dict, List, Tuple

from tensorrt_llm._torch.pyexecutor.kv_cache_connector import KvCacheConnectorScheduler, SchedulerOutput

from host_offload.metadata import HostOffloadMetadata


class HostOffloadScheduler(KvCacheConnectorScheduler):

    def __init__(self, llm_args, num_host_slots: int = 16384, tokens_per_block: int = 32):
        super().__init__(llm_args)
        self.tokens_per_block = tokens_per_block
        self.slot_of: "OrderedDict[int, int]" = OrderedDict()  # block hash -> host slot
        self.free_slots = list(range(num_host_slots))
        self._pending_loads: Dict[int, List[int]] = {}  # request id -> host slots
        self._pending_saves: List[Tuple[int, int]] = []
        self._save_req_ids: List[int] = []

    def _hashes(self, tokens: List[int]) -> List[int]:
        n, out, prev = self.tokens_per_block, [], 0
        for i in range(0, len(tokens) - len(tokens) % n, n):
            prev = hash((prev, tuple(tokens[i:i + n])))
            out.append(prev)
        return out

    def get_num_new_matched_tokens(self, request, num_computed_tokens: int) -> Tuple[int, bool]:
        slots = []
        for h in self._hashes(request.get_tokens(0))[num_computed_tokens // self.tokens_per_block:]:
            if h not in self.slot_of:
                break
            slots.append(self.slot_of[h])
        self._pending_loads[request.request_id] = slots
        return len(slots) * self.tokens_per_block, False  # loaded during this step's forward

    def update_state_after_alloc(self, request, block_ids: List[int]) -> None:
        pass  # the new request's blocks reach build_connector_meta through the scheduler output

    def request_finished(self, request, cache_block_ids: List[int]) -> bool:
        hashes = self._hashes(request.get_tokens(0))
        for h, block in zip(hashes, cache_block_ids):
            if h in self.slot_of or not self.free_slots:
                continue
            slot = self.free_slots.pop()
            self.slot_of[h] = slot
            self._pending_saves.append((slot, block))
        self._save_req_ids.append(request.request_id)
        return True  # keep the blocks until get_finished reports the save

    def build_connector_meta(self, scheduler_output: SchedulerOutput) -> HostOffloadMetadata:
        meta = HostOffloadMetadata(saves=self._pending_saves, save_req_ids=self._save_req_ids)
        for req in scheduler_output.new_requests:
            slots = self._pending_loads.pop(req.request_id, [])
            meta.loads.extend(zip(slots, req.new_block_ids))
        self._pending_saves, self._save_req_ids = [], []
        return meta
