"""Runs the text encoder on batches and hands the pooled, normalised embeddings to the
exporter. The encoder runs on torch's current stream."""
from typing import Dict, List

import torch
import torch.nn.functional as F

from .config import ExportConfig
from .exporter import HostExporter


class EncoderRunner:
    def __init__(self, model: torch.nn.Module, cfg: ExportConfig):
        self.model = model.eval()
        self.cfg = cfg
        self.out = torch.empty((cfg.max_batch, cfg.dim), dtype=torch.float16, device="cuda")
        self.exporter = HostExporter(self.out, cfg)

    @torch.inference_mode()
    def encode(self, ids: List[int], batch: Dict[str, torch.Tensor]) -> None:
        n = len(ids)
        hidden = self.model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp_min(1.0)
        # the previous batch may still be in flight out of the buffer
        self.exporter.drain()
        F.normalize(pooled, dim=-1, out=self.out[:n])
        self.exporter.export(n, ids)
