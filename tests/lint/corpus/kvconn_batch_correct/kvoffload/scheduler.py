# SPDX-License-Identifier: Apache-2.0
import logging
from collections import deque
from dataclasses import dataclass

from .constants import DEFAULT_BLOCK_SIZE, DEFAULT_NUM_CPU_BLOCKS
from .metadata import (BlockHash, OffloadConnectorMetadata, TransferSpec,
                       prefix_block_hashes)

logger = logging.getLogger(__name__)


@dataclass
class _ReqState:
    hashes: list[BlockHash]
    block_ids: list[int]
    num_stored: int = 0


class OffloadingScheduler:
    def __init__(self, block_size: int = DEFAULT_BLOCK_SIZE,
                 num_cpu_blocks: int = DEFAULT_NUM_CPU_BLOCKS) -> None:
        self.block_size = block_size
        self._free_cpu: deque[int] = deque(range(num_cpu_blocks))
        self._stored: dict[BlockHash, int] = {}
        self._storing: dict[str, list[tuple[BlockHash, int]]] = {}
        self._reqs: dict[str, _ReqState] = {}
        self._meta = OffloadConnectorMetadata()

    def get_num_new_matched_tokens(self, req_id: str, prompt_token_ids: list[int],
                                   num_computed_tokens: int) -> int:
        hashes = prefix_block_hashes(prompt_token_ids, self.block_size)
        first = num_computed_tokens // self.block_size
        hits = 0
        for h in hashes[first:]:
            if h not in self._stored:
                break
            hits += 1
        self._reqs[req_id] = _ReqState(hashes, [], num_stored=first + hits)
        return hits * self.block_size

    def update_state_after_alloc(self, req_id: str, block_ids: list[int],
                                 num_computed_tokens: int, num_external_tokens: int) -> None:
        state = self._reqs[req_id]
        state.block_ids = list(block_ids)
        if num_external_tokens == 0:
            return
        first = num_computed_tokens // self.block_size
        last = first + num_external_tokens // self.block_size
        self._meta.reqs_to_load[req_id] = TransferSpec(
            src_block_ids=[self._stored[h] for h in state.hashes[first:last]],
            dst_block_ids=state.block_ids[first:last])

    def build_connector_meta(self, num_computed: dict[str, int]) -> OffloadConnectorMetadata:
        for req_id, n_tokens in num_computed.items():
            state = self._reqs[req_id]
            full = min(n_tokens // self.block_size, len(state.hashes))
            new = range(state.num_stored, full)
            new = [i for i in new if state.hashes[i] not in self._stored]
            if not new or len(self._free_cpu) < len(new):
                continue
            cpu_ids = [self._free_cpu.popleft() for _ in new]
            self._storing.setdefault(req_id, []).extend(
                (state.hashes[i], c) for i, c in zip(new, cpu_ids))
            self._meta.reqs_to_store[req_id] = TransferSpec(
                src_block_ids=[state.block_ids[i] for i in new],
                dst_block_ids=cpu_ids)
            state.num_stored = full
        meta, self._meta = self._meta, OffloadConnectorMetadata()
        return meta

    def request_finished(self, req_id: str) -> bool:
        self._reqs.pop(req_id, None)
        return req_id in self._storing

    def update_connector_output(self, finished_sending: set[str]) -> None:
        for req_id in finished_sending:
            for block_hash, cpu_id in self._storing.pop(req_id, []):
                self._stored[block_hash] = cpu_id
