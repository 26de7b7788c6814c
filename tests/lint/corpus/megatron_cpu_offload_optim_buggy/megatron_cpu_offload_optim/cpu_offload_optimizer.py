"""Distributed optimizer whose fp32 main params and Adam state live in host memory."""
import logging
from typing import Dict, List, Optional

import torch
import torch.distributed as dist

from .config import CPUOffloadOptimizerConfig
from .param_and_grad_buffer import ParamAndGradBucket, ParamAndGradBucketGroup

logger = logging.getLogger(__name__)


class CPUOffloadDistributedOptimizer:

    def __init__(self, config: CPUOffloadOptimizerConfig, bucket_groups: List[ParamAndGradBucketGroup]):
        self.config = config
        self.bucket_groups = bucket_groups
        self._d2h_stream = torch.cuda.Stream(priority=config.d2h_stream_priority)
        self._h2d_stream = torch.cuda.Stream()
        self._grads_on_host: Dict[int, torch.cuda.Event] = {}
        self._params_uploaded = torch.cuda.Event()
        self._cpu_grads: Dict[int, torch.Tensor] = {}
        self._cpu_param_staging: Dict[int, torch.Tensor] = {}
        self._main_params: Dict[int, torch.nn.Parameter] = {}
        self._cpu_optimizers: Dict[int, torch.optim.Optimizer] = {}
        for bucket in self.buckets:
            shard = bucket.param_shard
            self._cpu_grads[bucket.index] = torch.empty(shard.shape, dtype=shard.dtype, pin_memory=True)
            self._cpu_param_staging[bucket.index] = torch.empty(shard.shape, dtype=shard.dtype, pin_memory=True)
            main_param = torch.nn.Parameter(shard.detach().to("cpu", dtype=torch.float32))
            self._main_params[bucket.index] = main_param
            self._cpu_optimizers[bucket.index] = torch.optim.AdamW(
                [main_param], lr=config.lr, betas=config.adam_betas, eps=config.adam_eps,
                weight_decay=config.weight_decay,
            )

    @property
    def buckets(self) -> List[ParamAndGradBucket]:
        return [bucket for group in self.bucket_groups for bucket in group.buckets]

    def _clip_grad_norm(self) -> torch.Tensor:
        grads = [bucket.grad_shard for bucket in self.buckets]
        total_norm_sq = torch.stack(torch._foreach_norm(grads)).float().pow(2).sum()
        dist.all_reduce(total_norm_sq, group=self.bucket_groups[0].data_parallel_group)
        total_norm = total_norm_sq.sqrt()
        # keep the clip factor on device so the step never stalls on a host sync
        clip_coeff = torch.clamp(self.config.clip_grad / (total_norm + 1.0e-6), max=1.0)
        torch._foreach_mul_(grads, clip_coeff.to(grads[0].dtype))
        return total_norm

    def _offload_grads(self) -> None:
        with torch.cuda.stream(self._d2h_stream):
            for bucket in self.buckets:
                self._d2h_stream.wait_event(bucket.grad_reduced)
                # expect: KVG001
                self._cpu_grads[bucket.index].copy_(bucket.grad_shard, non_blocking=True)
                self._grads_on_host[bucket.index] = self._d2h_stream.record_event()

    def _step_cpu_optimizers(self) -> None:
        for bucket in self.buckets:
            self._grads_on_host[bucket.index].synchronize()
            main_param = self._main_params[bucket.index]
            main_param.grad = self._cpu_grads[bucket.index].float()
            self._cpu_optimizers[bucket.index].step()
            main_param.grad = None

    def _upload_params(self) -> None:
        # staging buffers are reused every step; the previous upload must have drained
        self._params_uploaded.synchronize()
        for bucket in self.buckets:
            self._cpu_param_staging[bucket.index].copy_(self._main_params[bucket.index].detach())
        # param shards are still read by in-flight kernels of this iteration
        self._h2d_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._h2d_stream):
            for bucket in self.buckets:
                bucket.param_shard.copy_(self._cpu_param_staging[bucket.index], non_blocking=True)
            self._params_uploaded.record()
        torch.cuda.current_stream().wait_event(self._params_uploaded)

    @torch.no_grad()
    def step(self) -> Optional[torch.Tensor]:
        for group in self.bucket_groups:
            group.finish_grad_sync()
        grad_norm = self._clip_grad_norm() if self.config.clip_grad > 0.0 else None
        self._offload_grads()
        self._step_cpu_optimizers()
        self._upload_params()
        for group in self.bucket_groups:
            group.start_param_sync()
        logger.debug("cpu-offload optimizer step done for %d buckets", len(self._main_params))
        return grad_norm

    def zero_grad(self) -> None:
        for group in self.bucket_groups:
            group.zero_grad_buffer()
