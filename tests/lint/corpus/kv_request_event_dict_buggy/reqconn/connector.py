"""Worker side of a CPU offload connector: saves finished requests' KV blocks to pinned memory."""

from dataclasses import dataclass, field

import torch


@dataclass
class SaveSpec:
    req_id: str
    block_ids: list = field(default_factory=list)


class ReqOffloadConnector:
    def __init__(self, num_blocks: int, block_numel: int):
        self.gpu_kv = torch.zeros(num_blocks, block_numel, dtype=torch.float16, device="cuda")
        self.cpu_kv = torch.empty(num_blocks, block_numel, dtype=torch.float16, pin_memory=True)
        self.store_stream = torch.cuda.Stream()
        self._ready = {}
        self._pending = {}
        self._done = {}

    def save_kv_layer(self, spec: SaveSpec) -> None:
        # Called on the model thread right after the last layer wrote the request's blocks.
        ev = torch.cuda.Event()
        ev.record(torch.cuda.current_stream())
        self._ready[spec.req_id] = ev
        self._pending[spec.req_id] = spec

    def wait_for_save(self) -> None:
        for req_id in list(self._pending):
            self._flush(req_id)

    def _flush(self, req_id: str) -> None:
        spec = self._pending.pop(req_id)
        ready = self._ready.pop(req_id)
        if not spec.block_ids:
            return
        with torch.cuda.stream(self.store_stream):
            for i in spec.block_ids:
                # expect: KVG001
                self.cpu_kv[i].copy_(self.gpu_kv[i], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        self._done[req_id] = done

    def get_finished(self) -> set:
        finished = set()
        for req_id, ev in list(self._done.items()):
            if ev.query():
                finished.add(req_id)
                del self._done[req_id]
        return finished
