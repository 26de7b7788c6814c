from __future__ import annotations

from dataclasses import dataclass

import cupy as cp
import torch

from .interop import as_cupy, cupy_stream_for


@dataclass
class EncodedBatch:
    doc_ids: list[str]
    emb: cp.ndarray  # (n, dim) float16, view of ``tensor``
    tensor: torch.Tensor  # keeps the allocation alive while CuPy uses it
    stream: torch.cuda.Stream  # stream that produced ``tensor``


def _mean_pool(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(dim=1) / m.sum(dim=1).clamp_min(1e-6)


_l2_normalize = cp.ElementwiseKernel(
    "T x, T norm", "T y", "y = x / (norm + (T)1e-12)", "embexport_l2_normalize"
)


class EmbeddingWorker:
    def __init__(self, model: torch.nn.Module, device: torch.device | str = "cuda") -> None:
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.stream = torch.cuda.Stream(self.device)

    @torch.inference_mode()
    def encode(self, doc_ids: list[str], input_ids: torch.Tensor, attention_mask: torch.Tensor) -> EncodedBatch:
        with torch.cuda.stream(self.stream):
            ids = input_ids.to(self.device, non_blocking=True)
            mask = attention_mask.to(self.device, non_blocking=True)
            hidden = self.model(input_ids=ids, attention_mask=mask).last_hidden_state
            pooled = _mean_pool(hidden, mask).to(torch.float16)
        emb = as_cupy(pooled, self.stream)
        with cupy_stream_for(self.stream):
            norm = cp.linalg.norm(emb.astype(cp.float32), axis=1, keepdims=True).astype(emb.dtype)
            _l2_normalize(emb, norm, emb)
        return EncodedBatch(doc_ids=doc_ids, emb=emb, tensor=pooled, stream=self.stream)
