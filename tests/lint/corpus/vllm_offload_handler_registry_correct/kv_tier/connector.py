import torch

from kv_tier.spec import CPUTierSpec
from kv_tier.worker import TransferWorker


class OffloadConnectorWorker:
    def __init__(self, spec: CPUTierSpec):
        self.spec = spec
        self.worker = TransferWorker()

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        for src_cls, dst_cls, handler in self.spec.get_handlers(list(kv_caches.values())):
            self.worker.register_handler(src_cls, dst_cls, handler)

    def start_transfers(self, jobs: dict[int, tuple]) -> None:
        for job_id, spec in jobs.items():
            assert self.worker.transfer_async(job_id, spec)

    def get_finished(self) -> list[int]:
        return self.worker.get_finished()
