"""Train pipeline that prefetches the next batch's embedding rows while the current one trains."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import torch
import torch.nn.functional as F

from .cache import CachedEmbeddingTable, PrefetchedBatch


@dataclass
class _StagedBatch:
    emb: PrefetchedBatch
    dense: torch.Tensor
    labels: torch.Tensor


class TrainPipelinePrefetch:
    def __init__(self, dense_model: torch.nn.Module, cache: CachedEmbeddingTable,
                 optimizer: torch.optim.Optimizer, device: torch.device, embedding_lr: float = 0.01) -> None:
        self.dense_model = dense_model
        self.cache = cache
        self.optimizer = optimizer
        self.device = device
        self.embedding_lr = embedding_lr
        self._cur: _StagedBatch | None = None

    def _stage(self, it: Iterator) -> _StagedBatch:
        ids, dense, labels = next(it)
        return _StagedBatch(
            emb=self.cache.prefetch(ids.numpy()),
            dense=dense.to(self.device, non_blocking=True),
            labels=labels.to(self.device, non_blocking=True),
        )

    def progress(self, it: Iterator) -> torch.Tensor:
        if self._cur is None:
            self._cur = self._stage(it)
        cur = self._cur

        emb = self.cache.lookup(cur.emb).requires_grad_()
        logits = self.dense_model(emb, cur.dense)
        loss = F.binary_cross_entropy_with_logits(logits, cur.labels)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.cache.apply_sparse_grad(cur.emb, emb.grad, self.embedding_lr)

        # gather + upload of the next batch overlaps with the dense optimizer step
        try:
            self._cur = self._stage(it)
        except StopIteration:
            self._cur = None
        self.optimizer.step()
        return loss.detach()
