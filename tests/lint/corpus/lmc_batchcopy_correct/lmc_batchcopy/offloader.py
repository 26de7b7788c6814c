# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import List, Sequence, Tuple
import logging

# Third Party
from cuda.bindings import driver
import torch

# First Party
from lmc_batchcopy.batch_ops import batched_copy, build_d2h_attrs
from lmc_batchcopy.constants import KV_SRC_ACCESS_ORDER
from lmc_batchcopy.cuda_utils import as_stream, check, create_event, create_stream

logger = logging.getLogger(__name__)


@dataclass
class OffloadHandle:
    done: driver.CUevent
    host_tensors: List[torch.Tensor]

    def wait(self) -> List[torch.Tensor]:
        check(driver.cuEventSynchronize(self.done))
        check(driver.cuEventDestroy(self.done))
        return self.host_tensors


class BatchedKVOffloader:
    """Offloads token spans of every layer in one driver batch per call."""

    def __init__(self, device: torch.device):
        self.device = device
        self.stream = create_stream()
        self.fence = create_event()
        self.attrs = build_d2h_attrs(device.index or 0, KV_SRC_ACCESS_ORDER)

    def offload(
        self,
        kv_layers: Sequence[torch.Tensor],
        spans: Sequence[Tuple[int, int]],
    ) -> OffloadHandle:
        """``kv_layers[i]`` is ``[2, max_tokens, hidden]``, token-major per K/V."""
        compute = as_stream(torch.cuda.current_stream(self.device).cuda_stream)
        check(driver.cuEventRecord(self.fence, compute))
        check(driver.cuStreamWaitEvent(self.stream, self.fence, 0))

        host_tensors, dsts, srcs, sizes = [], [], [], []
        for start, end in spans:
            n = end - start
            host = torch.empty((len(kv_layers), 2, n, kv_layers[0].shape[-1]),
                               dtype=kv_layers[0].dtype, pin_memory=True)
            for layer_id, kv in enumerate(kv_layers):
                for kv_idx in range(2):
                    src = kv[kv_idx, start:end]
                    dsts.append(host[layer_id, kv_idx].data_ptr())
                    srcs.append(src.data_ptr())
                    sizes.append(src.numel() * src.element_size())
            host_tensors.append(host)

        batched_copy(dsts, srcs, sizes, self.attrs, self.stream)
        done = create_event()
        check(driver.cuEventRecord(done, self.stream))
        logger.debug("offload: %d copies in batch", len(sizes))
        return OffloadHandle(done, host_tensors)
