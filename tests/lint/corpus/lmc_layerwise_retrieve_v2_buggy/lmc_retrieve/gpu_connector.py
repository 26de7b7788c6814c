# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Dict, Generator, List, Optional, Tuple

# Third Party
import torch

# First Party
from lmc_retrieve.kernels import rotate_keys_inplace, scatter_to_paged
from lmc_retrieve.memory_management import GPUMemoryAllocator, MemoryObj, logger


class VLLMBufferLayerwiseGPUConnector:
    def __init__(
        self,
        hidden_dim_size: int,
        num_layers: int,
        dtype: torch.dtype,
        device: torch.device,
        max_tokens: int = 32000,
        rope_theta: float = 10000.0,
    ):
        self.hidden_dim_size = hidden_dim_size
        self.num_layers = num_layers
        self.dtype = dtype
        self.device = device
        shape = self.get_shape(max_tokens)
        itemsize = torch.tensor([], dtype=dtype).element_size()
        # two buffers: one being loaded, one being consumed
        self.gpu_buffer_allocator = GPUMemoryAllocator(
            2 * shape.numel() * itemsize, device=device
        )
        self.load_stream = torch.cuda.Stream(device=device)
        self.buffer_mapping: Dict[int, MemoryObj] = {}
        head_dim = 128
        self.inv_freq = 1.0 / (
            rope_theta
            ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim)
        )

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, num_tokens, self.hidden_dim_size])

    def batched_to_gpu(
        self,
        starts: List[int],
        ends: List[int],
        kvcaches: List[Tuple[torch.Tensor, torch.Tensor]],
        slot_mapping: torch.Tensor,
    ) -> Generator[None, Optional[List[MemoryObj]], None]:
        num_all_tokens = ends[-1] - starts[0]
        buf_offset = starts[0]
        slot_mapping_full = slot_mapping[starts[0] : ends[-1]]
        new_positions = torch.arange(
            starts[0], ends[-1], dtype=torch.int64, device=self.device
        )
        old_positions = torch.zeros_like(new_positions)

        self.gpu_buffer_allocator.reset()
        shape = self.get_shape(num_all_tokens)
        compute_buf = self.gpu_buffer_allocator.allocate(shape, self.dtype)
        load_buf = self.gpu_buffer_allocator.allocate(shape, self.dtype)

        current_stream = torch.cuda.current_stream()
        self.load_stream.wait_stream(current_stream)

        for layer_id in range(self.num_layers + 2):
            if layer_id > 1:
                scatter_to_paged(
                    self.buffer_mapping[layer_id - 2].tensor,
                    kvcaches[layer_id - 2][0],
                    kvcaches[layer_id - 2][1],
                    slot_mapping_full,
                )
                del self.buffer_mapping[layer_id - 2]

            if 0 < layer_id <= self.num_layers:
                self.load_stream.synchronize()
                compute_buf, load_buf = load_buf, compute_buf
                rotate_keys_inplace(
                    compute_buf.tensor[0], old_positions, new_positions, self.inv_freq
                )
                self.buffer_mapping[layer_id - 1] = compute_buf

            if layer_id < self.num_layers:
                memory_objs_layer = yield
                assert memory_objs_layer is not None
                with torch.cuda.stream(self.load_stream):
                    _load_layer(
                        load_buf.tensor, memory_objs_layer, starts, ends, buf_offset
                    )
                if layer_id == 0:
                    for obj, s, e in zip(memory_objs_layer, starts, ends, strict=True):
                        old_positions[s - buf_offset : e - buf_offset] = obj.old_positions
            else:
                yield

        load_buf.ref_count_down()
        compute_buf.ref_count_down()
        logger.debug("Retrieved %d tokens over %d layers", num_all_tokens, self.num_layers)


def _load_layer(
    dst: torch.Tensor,
    memory_objs: List[MemoryObj],
    starts: List[int],
    ends: List[int],
    buf_offset: int,
) -> None:
    for obj, start, end in zip(memory_objs, starts, ends, strict=True):
        # expect: KVG004
        dst[:, start - buf_offset : end - buf_offset].copy_(obj.tensor, non_blocking=True)
