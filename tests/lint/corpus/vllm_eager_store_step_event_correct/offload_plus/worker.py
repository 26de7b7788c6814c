"""Worker side of the connector, driven by vLLM's model runner:
start_load_kv before the forward, wait_for_save after it, get_finished at the end."""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

import torch

from offload_plus.handlers import TransferHandler
from offload_plus.handlers import TransferSpec
from offload_plus.spec import OffloadingSpec


@dataclass
class OffloadMetadata:
    # job id -> (request id, transfer)
    load_jobs: Dict[int, Tuple[str, TransferSpec]] = field(default_factory=dict)
    store_jobs: Dict[int, Tuple[str, TransferSpec]] = field(default_factory=dict)


class OffloadConnectorWorker:

    def __init__(self, extra_config: dict):
        self.spec = OffloadingSpec.create(extra_config)
        self.eager_store = bool(extra_config.get("eager_store", False))
        self._handlers: Dict[Tuple[str, str], TransferHandler] = {}
        self._deferred_stores: List[Tuple[int, str, TransferSpec]] = []
        self._step_ready: Optional[torch.cuda.Event] = None
        self._jobs: Dict[int, Tuple[str, bool]] = {}

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        for src, dst, handler in self.spec.get_handlers(kv_caches):
            self._handlers[(src, dst)] = handler

    def _submit(self, job_id: int, req_id: str, spec: TransferSpec, ready: torch.cuda.Event,
                is_store: bool) -> None:
        self._handlers[spec.transfer_type].transfer_async(job_id, spec, ready)
        self._jobs[job_id] = (req_id, is_store)

    def start_load_kv(self, meta: OffloadMetadata) -> None:
        # one event per step, recorded before this step's forward is queued: everything the
        # previous step's forward wrote is behind it
        ready = torch.cuda.Event()
        ready.record()
        self._step_ready = ready
        for job_id, req_id, spec in self._deferred_stores:
            self._submit(job_id, req_id, spec, ready, is_store=True)
        self._deferred_stores.clear()
        for job_id, (req_id, spec) in meta.load_jobs.items():
            self._submit(job_id, req_id, spec, ready, is_store=False)

    def wait_for_save(self, meta: OffloadMetadata) -> None:
        forward_done: Optional[torch.cuda.Event] = None
        if self.eager_store and meta.store_jobs:
            # the blocks are written by the forward queued since start_load_kv: the step's
            # ready event is older than those writes, so record one behind the forward
            forward_done = torch.cuda.Event()
            forward_done.record()
        for job_id, (req_id, spec) in meta.store_jobs.items():
            if forward_done is not None:
                # the step is over for the host: submit now so the blocks are freed a step earlier
                self._submit(job_id, req_id, spec, forward_done, is_store=True)
            else:
                self._deferred_stores.append((job_id, req_id, spec))

    def get_finished(self) -> Tuple[Set[str], Set[str]]:
        sending, recving = set(), set()
        for handler in self._handlers.values():
            for job_id in handler.get_finished():
                req_id, is_store = self._jobs.pop(job_id)
                (sending if is_store else recving).add(req_id)
        return sending, recving
