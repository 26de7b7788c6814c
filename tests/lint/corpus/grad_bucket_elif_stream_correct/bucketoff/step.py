"""One training step: gradients are packed into buckets, flushed, and read by the CPU optimizer
once each bucket's copy has landed."""

from typing import List

import torch

from bucketoff.bucket import GradBucket, flush_all


def train_step(model: torch.nn.Module, batch: torch.Tensor, buckets: List[GradBucket], cpu_step) -> None:
    loss = model(batch).sum()
    loss.backward()
    for bucket, param in zip(buckets, model.parameters()):
        bucket.add(param.grad)
    for bucket, done in zip(buckets, flush_all(buckets)):
        done.synchronize()
        cpu_step(bucket.host.numpy())
