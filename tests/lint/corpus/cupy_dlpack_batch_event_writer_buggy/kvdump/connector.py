"""Exports finished prefix pages of the KV cache to a local directory."""
import queue
from dataclasses import dataclass

import torch

from .exporter import PageExporter
from .ring import StagingRing
from .writer import PageWriter


@dataclass
class ExportConfig:
    root: str = "/var/cache/kvdump"
    staging_slots: int = 32


class DiskExportConnector:
    def __init__(self, kv_cache: torch.Tensor, cfg: ExportConfig = ExportConfig()):
        self._jobs = queue.Queue()
        self._ring = StagingRing(cfg.staging_slots, tuple(kv_cache.shape[1:]),
                                 str(kv_cache.dtype).replace("torch.", ""))
        self._writer = PageWriter(cfg.root, self._ring, self._jobs)
        self._writer.start()
        self._exporter = PageExporter(kv_cache, self._ring, self._jobs)

    def save_pages(self, page_ids, keys):
        """Called by the model runner after the forward that completed these pages."""
        self._exporter.export(page_ids, keys)

    def flush(self):
        self._jobs.join()

    def close(self):
        self._jobs.put(None)
        self._writer.join()
