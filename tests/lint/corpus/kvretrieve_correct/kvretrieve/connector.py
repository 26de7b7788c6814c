# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import List
import logging

# Third Party
import torch

# First Party
from kvretrieve.config import RetrieveConfig
from kvretrieve.device_utils import create_stream, current_stream, get_device_module
from kvretrieve.staging import GPUStagingBuffer, scatter_to_paged

logger = logging.getLogger(__name__)


class PagedRetrieveConnector:
    """Loads KV_2LTD memory objects into a paged KV cache through a GPU
    staging buffer, one chunk at a time."""

    def __init__(self, config: RetrieveConfig, device: torch.device):
        self.config = config
        self.device = device
        self.device_module = get_device_module(device)
        self.load_stream = create_stream(device)
        self.staging = GPUStagingBuffer(config, device)

    def batched_to_gpu(
        self,
        host_tensors: List[torch.Tensor],
        starts: List[int],
        ends: List[int],
        kvcaches: List[torch.Tensor],
        slot_mapping: torch.Tensor,
    ) -> None:
        compute_stream = current_stream(self.device)
        for host_tensor, start, end in zip(host_tensors, starts, ends, strict=False):
            num_tokens = end - start
            with self.device_module.stream(self.load_stream):
                self.load_stream.wait_stream(compute_stream)
                staged = self.staging.load(host_tensor, num_tokens)
            compute_stream.wait_stream(self.load_stream)
            scatter_to_paged(staged, kvcaches, slot_mapping[start:end])
        # host buffers go back to the allocator after this returns
        self.load_stream.synchronize()
        logger.debug("Loaded %d chunks into the paged KV cache", len(host_tensors))
