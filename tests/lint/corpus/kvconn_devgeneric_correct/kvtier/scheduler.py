# SPDX-License-Identifier: Apache-2.0
import hashlib
import itertools
import pickle
from dataclasses import dataclass, field

from .constants import DEFAULT_BLOCK_SIZE


def block_hashes(token_ids: list[int], block_size: int) -> list[bytes]:
    parent = b"\0" * 32
    out = []
    for i in range(len(token_ids) // block_size):
        chunk = tuple(token_ids[i * block_size:(i + 1) * block_size])
        parent = hashlib.sha256(pickle.dumps((parent, chunk))).digest()
        out.append(parent)
    return out


@dataclass
class TierConnectorMetadata:
    # job_id -> (src block ids, dst block ids)
    loads: dict[int, tuple[list[int], list[int]]] = field(default_factory=dict)
    stores: dict[int, tuple[list[int], list[int]]] = field(default_factory=dict)


class TierScheduler:
    def __init__(self, num_cpu_blocks: int, block_size: int = DEFAULT_BLOCK_SIZE) -> None:
        self.block_size = block_size
        self._free_cpu = list(range(num_cpu_blocks))
        self._ready: dict[bytes, int] = {}
        self._job_ids = itertools.count()
        self._jobs: dict[int, tuple[str, list[tuple[bytes, int]]]] = {}
        self._req_jobs: dict[str, set[int]] = {}
        self._meta = TierConnectorMetadata()

    def lookup(self, token_ids: list[int], num_computed: int) -> list[bytes]:
        hashes = block_hashes(token_ids, self.block_size)
        start = num_computed // self.block_size
        hits = list(itertools.takewhile(lambda h: h in self._ready, hashes[start:]))
        return hits

    def schedule_load(self, req_id: str, hits: list[bytes], gpu_block_ids: list[int]) -> None:
        job_id = next(self._job_ids)
        self._meta.loads[job_id] = ([self._ready[h] for h in hits], gpu_block_ids)
        self._req_jobs.setdefault(req_id, set()).add(job_id)
        self._jobs[job_id] = (req_id, [])

    def schedule_store(self, req_id: str, hashes: list[bytes], gpu_block_ids: list[int]) -> None:
        fresh = [(h, b) for h, b in zip(hashes, gpu_block_ids) if h not in self._ready]
        if not fresh or len(fresh) > len(self._free_cpu):
            return
        cpu_ids = [self._free_cpu.pop() for _ in fresh]
        job_id = next(self._job_ids)
        self._meta.stores[job_id] = ([b for _, b in fresh], cpu_ids)
        self._jobs[job_id] = (req_id, [(h, c) for (h, _), c in zip(fresh, cpu_ids)])
        self._req_jobs.setdefault(req_id, set()).add(job_id)

    def build_connector_meta(self) -> TierConnectorMetadata:
        meta, self._meta = self._meta, TierConnectorMetadata()
        return meta

    def on_jobs_finished(self, job_ids: set[int]) -> set[str]:
        """Returns requests whose transfers have all completed."""
        done_reqs = set()
        for job_id in job_ids:
            req_id, stored = self._jobs.pop(job_id)
            self._ready.update(stored)
            pending = self._req_jobs[req_id]
            pending.discard(job_id)
            if not pending:
                done_reqs.add(req_id)
                del self._req_jobs[req_id]
        return done_reqs

    def request_finished(self, req_id: str) -> bool:
        return bool(self._req_jobs.get(req_id))
