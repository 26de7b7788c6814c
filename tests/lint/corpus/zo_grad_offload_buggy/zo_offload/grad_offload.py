"""Reduces gradient buckets on the reduction stream and stages them into pinned host buffers."""
import torch
import torch.distributed as dist
from cuda.bindings import driver

from .batch_copy import batch_copy_d2h, make_d2h_attrs
from .offload_config import CPU_OFFLOAD_PIN_MEMORY, GRAD_D2H_FLAGS, GRAD_D2H_SRC_ORDER, REDUCE_BUCKET_SIZE


class ZeroOffloadGradHandler:
    def __init__(self, params, device):
        self.device = torch.device(device)
        self.reduction_stream = torch.cuda.Stream(device=self.device)
        self.params = [p for p in params if p.requires_grad]
        self.host_grads = {
            id(p): torch.empty(p.numel(), dtype=p.dtype, pin_memory=CPU_OFFLOAD_PIN_MEMORY) for p in self.params
        }
        self.host_overflow = torch.zeros(1, dtype=torch.uint8, pin_memory=True)
        self._overflow_gpu = torch.zeros(1, dtype=torch.uint8, device=self.device)
        dev_idx = self.device.index or 0
        self._grad_attr = make_d2h_attrs(dev_idx, GRAD_D2H_SRC_ORDER, GRAD_D2H_FLAGS)
        self._flag_attr = make_d2h_attrs(
            dev_idx,
            src_order=driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL,
        )
        self._bucket: list[torch.nn.Parameter] = []
        self._bucket_numel = 0
        for p in self.params:
            p.register_post_accumulate_grad_hook(self._grad_ready)

    def _grad_ready(self, param: torch.nn.Parameter) -> None:
        self._bucket.append(param)
        self._bucket_numel += param.numel()
        if self._bucket_numel >= REDUCE_BUCKET_SIZE:
            self.flush()

    def flush(self) -> None:
        if not self._bucket:
            return
        bucket, self._bucket, self._bucket_numel = self._bucket, [], 0
        world = dist.get_world_size() if dist.is_initialized() else 1
        self.reduction_stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(self.reduction_stream):
            grads = [p.grad.view(-1) for p in bucket]
            for g in grads:
                if world > 1:
                    dist.all_reduce(g)
                    g.div_(world)
            bad = torch.stack([~torch.isfinite(g).all() for g in grads]).any()
            self._overflow_gpu.bitwise_or_(bad.to(torch.uint8))
            batch_copy_d2h([self.host_grads[id(p)] for p in bucket], grads, self._grad_attr, self.reduction_stream)
        for p in bucket:
            p.grad.record_stream(self.reduction_stream)
            p.grad = None

    def finish_backward(self) -> bool:
        """Returns True when the step must be skipped because of inf/nan gradients."""
        self.flush()
        with torch.cuda.stream(self.reduction_stream):
            batch_copy_d2h([self.host_overflow], [self._overflow_gpu], self._flag_attr, self.reduction_stream)
            self._overflow_gpu.zero_()
        self.reduction_stream.synchronize()
        return bool(self.host_overflow.item())
