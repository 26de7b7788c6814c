"""Scheduler-side connector: decides which blocks to offload each step."""

from __future__ import annotations

from cpu_connector.metadata import CpuConnectorMetadata, ReqSaveSpec


class CpuConnectorScheduler:
    def __init__(self, num_cpu_blocks: int, block_size: int):
        self.block_size = block_size
        self._free_cpu = list(range(num_cpu_blocks))
        self._saved_tokens: dict[str, int] = {}
        self._pending: list[ReqSaveSpec] = []

    def request_finished_prefill(self, req_id: str, block_ids: list[int], num_tokens: int) -> None:
        already = self._saved_tokens.get(req_id, 0) // self.block_size
        new_blocks = block_ids[already : num_tokens // self.block_size]
        if not new_blocks or len(new_blocks) > len(self._free_cpu):
            return
        cpu_blocks = [self._free_cpu.pop() for _ in new_blocks]
        self._pending.append(ReqSaveSpec(req_id, list(new_blocks), cpu_blocks))
        self._saved_tokens[req_id] = num_tokens

    def build_connector_meta(self) -> CpuConnectorMetadata:
        meta = CpuConnectorMetadata(saves=self._pending)
        self._pending = []
        return meta

    def free(self, cpu_block_ids: list[int]) -> None:
        self._free_cpu.extend(cpu_block_ids)
