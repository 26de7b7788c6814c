"""Draft-model proposer for speculative decoding with draft KV swap-out."""

import logging
from typing import Dict, List, Sequence

import torch

from .draft_kv_offload import DraftKVOffloader

logger = logging.getLogger(__name__)


class DraftModelProposer:
    def __init__(self, draft_model: torch.nn.Module, offloader: DraftKVOffloader,
                 num_speculative_tokens: int, max_num_reqs: int, num_host_slots: int):
        self.draft_model = draft_model
        self.offloader = offloader
        self.k = num_speculative_tokens
        self.free_slots: List[int] = list(range(max_num_reqs))
        self.free_host_slots: List[int] = list(range(num_host_slots))
        self.req_slot: Dict[str, int] = {}
        self.swapped: Dict[str, int] = {}          # req -> host slot
        self._pending_release: Dict[str, int] = {}  # req -> gpu slot freed once offloaded
        self._draft_host = torch.empty((max_num_reqs, num_speculative_tokens), dtype=torch.int64,
                                       pin_memory=True)

    def add_request(self, req_id: str) -> int:
        slot = self.free_slots.pop()
        self.req_slot[req_id] = slot
        return slot

    @torch.inference_mode()
    def propose(self, req_ids: Sequence[str], input_ids: torch.Tensor, positions: torch.Tensor,
                hidden_states: torch.Tensor, swap_out: Sequence[str]) -> Dict[str, List[int]]:
        """Run k draft steps. ``swap_out``: requests of this batch preempted after this step."""
        slots = torch.tensor([self.req_slot[r] for r in req_ids], device=input_ids.device)
        tokens = []
        ids, pos = input_ids, positions
        for _ in range(self.k):
            # appends one position of draft KV to each request's slot
            logits, hidden_states = self.draft_model(ids, pos, hidden_states, slots)
            ids = logits.argmax(dim=-1)
            pos = pos + 1
            tokens.append(ids)
        draft = torch.stack(tokens, dim=1)
        out = self._draft_host[: len(req_ids)]
        out.copy_(draft, non_blocking=True)
        copied = torch.cuda.Event()
        copied.record()

        for req_id in swap_out:
            # after the last draft step wrote the slot
            self.offloader.mark_ready(req_id)
            host_slot = self.free_host_slots.pop()
            self.swapped[req_id] = host_slot
            slot = self.req_slot.pop(req_id)
            self._pending_release[req_id] = slot
            self.offloader.request_offload(req_id, slot, host_slot)

        copied.synchronize()
        rows = out.tolist()
        return {r: rows[i] for i, r in enumerate(req_ids)}

    def release_offloaded_slots(self) -> int:
        """GPU slots are reused only once their draft KV has left the device."""
        done = [r for r in self._pending_release if self.offloader.is_offloaded(r)]
        for r in done:
            self.free_slots.append(self._pending_release.pop(r))
        return len(done)

    def resume(self, req_id: str) -> torch.Tensor:
        host_slot = self.swapped.pop(req_id)
        kv = self.offloader.restore(req_id, host_slot)
        self.free_host_slots.append(host_slot)
        return kv
