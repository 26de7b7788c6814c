import numpy as np
import torch
from cuda.bindings import runtime as cudart

from . import rt
from .config import MoeLoadBalancerConfig


class ExpertStatistic:
    """Per-iteration expert hit counters with an async host mirror."""

    def __init__(self, config: MoeLoadBalancerConfig):
        self.layer_ids = list(config.layer_ids)
        self.gpu_counts = torch.zeros((config.num_layers, config.num_experts),
                                      dtype=torch.int32,
                                      device="cuda")
        self.host_counts, self._host_ptr = rt.pinned_array(
            (len(self.layer_ids), config.num_experts), np.int32)
        self._row_bytes = config.num_experts * 4
        self._stream = rt.new_stream()
        self.stats_ready = rt.new_event()
        self.host_ready = rt.new_event()
        self._attrs = cudart.cudaMemcpyAttributes()
        self._attrs.srcAccessOrder = (
            cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderStream)
        self._attrs.srcLocHint.type = (
            cudart.cudaMemLocationType.cudaMemLocationTypeDevice)
        self._attrs.dstLocHint.type = (
            cudart.cudaMemLocationType.cudaMemLocationTypeHost)

    def update(self, layer_id: int, expert_ids: torch.Tensor) -> None:
        ones = torch.ones_like(expert_ids, dtype=torch.int32)
        self.gpu_counts[layer_id].index_add_(0, expert_ids.flatten(),
                                             ones.flatten())

    def snapshot(self, compute: cudart.cudaStream_t) -> None:
        rt.record(self.stats_ready, compute)
        rt.stream_wait(self._stream, self.stats_ready)
        if self.layer_ids == list(range(self.gpu_counts.shape[0])):
            rt.check(
                cudart.cudaMemcpyAsync(self._host_ptr,
                                       self.gpu_counts.data_ptr(),
                                       self.gpu_counts.nbytes, rt.D2H,
                                       self._stream))
        else:
            dsts = [
                self._host_ptr + i * self._row_bytes
                for i in range(len(self.layer_ids))
            ]
            srcs = [
                self.gpu_counts[layer].data_ptr() for layer in self.layer_ids
            ]
            sizes = [self._row_bytes] * len(srcs)
            rt.check(
                cudart.cudaMemcpyBatchAsync(dsts, srcs, sizes, len(srcs),
                                            [self._attrs], [0], 1,
                                            self._stream))
        rt.record(self.host_ready, self._stream)

    def reset(self, compute: cudart.cudaStream_t) -> None:
        rt.stream_wait(compute, self.host_ready)
        self.gpu_counts.zero_()
