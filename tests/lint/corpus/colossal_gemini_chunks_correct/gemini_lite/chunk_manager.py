from collections import deque
from pathlib import Path

import torch

from .chunk import Chunk


class ChunkManager:

    def __init__(self, chunk_size: int, swap_dir: Path):
        self.chunk_size = chunk_size
        self.chunk_groups: dict[str, deque[Chunk]] = {}
        self.accessed_chunks: set[Chunk] = set()
        self.total_mem: dict[str, int] = {"cpu": 0, "cuda": 0}
        self.swap_dir = Path(swap_dir)
        self._compute_stream = torch.cuda.current_stream()
        self._offload_stream = torch.cuda.Stream()
        self._fetch_stream = torch.cuda.Stream()

    def register_tensor(self, tensor: torch.Tensor, group_name: str,
                        dtype: torch.dtype = torch.float16) -> Chunk:
        group = self.chunk_groups.setdefault(group_name, deque())
        if not group or group[-1].utilized_size + tensor.numel() > self.chunk_size:
            group.append(Chunk(self.chunk_size, dtype))
            self.total_mem["cuda"] += group[-1].chunk_mem
        group[-1].append_tensor(tensor)
        return group[-1]

    def copy_tensor_to_chunk_slice(self, tensor: torch.Tensor, data: torch.Tensor,
                                   chunk: Chunk) -> None:
        info = chunk.tensors_info[tensor]
        chunk.cuda_global_chunk[info.offset:info.end].copy_(data.flatten())

    def move_chunk(self, chunk: Chunk, device: torch.device) -> None:
        if device.type == chunk.device_type:
            return
        if device.type == "cpu":
            self._offload(chunk)
        else:
            self._fetch(chunk)

    def _offload(self, chunk: Chunk) -> None:
        src = chunk.cuda_global_chunk
        if chunk.cpu_shard is None:
            chunk.cpu_shard = torch.empty(chunk.chunk_size, dtype=chunk.dtype,
                                          pin_memory=chunk.pin_memory)
        self._offload_stream.wait_stream(self._compute_stream)
        with torch.cuda.stream(self._offload_stream):
            chunk.cpu_shard.copy_(src, non_blocking=True)
            chunk.offload_event = torch.cuda.Event()
            chunk.offload_event.record()
        src.record_stream(self._offload_stream)
        chunk.cuda_global_chunk = None
        self.total_mem["cuda"] -= chunk.chunk_mem
        self.total_mem["cpu"] += chunk.chunk_mem

    def _fetch(self, chunk: Chunk) -> None:
        if chunk.offload_event is not None:
            self._fetch_stream.wait_event(chunk.offload_event)
        with torch.cuda.stream(self._fetch_stream):
            cuda_chunk = torch.empty(chunk.chunk_size, dtype=chunk.dtype,
                                     device=torch.cuda.current_device())
            cuda_chunk.copy_(chunk.cpu_shard, non_blocking=True)
        self._compute_stream.wait_stream(self._fetch_stream)
        cuda_chunk.record_stream(self._compute_stream)
        chunk.cuda_global_chunk = cuda_chunk
        self.total_mem["cpu"] -= chunk.chunk_mem
        self.total_mem["cuda"] += chunk.chunk_mem

    def spill_to_disk(self, chunk: Chunk) -> Path:
        path = self.swap_dir / f"chunk_{chunk.chunk_id}.bin"
        if chunk.offload_event is not None:
            chunk.offload_event.synchronize()
        with open(path, "wb") as f:
            f.write(chunk.cpu_shard.numpy().tobytes())
        return path
