"""A contiguous chunk of parameters that can live on CUDA or in pinned host memory."""
import torch


class Chunk:
    def __init__(self, chunk_id: int, chunk_size: int, dtype: torch.dtype, device, pin_memory: bool = True):
        self.chunk_id = chunk_id
        self.chunk_size = chunk_size
        self.dtype = dtype
        self.pin_memory = pin_memory
        self.cuda_shard = torch.zeros(chunk_size, dtype=dtype, device=device)
        self.cpu_shard = None
        self.cpu_vis_flag = False  # cpu_shard holds the latest values
        self.utilized_size = 0
        self.tensors_info: dict[torch.Tensor, tuple[int, int]] = {}

    @property
    def device_type(self) -> str:
        return "cuda" if self.cuda_shard is not None else "cpu"

    @property
    def chunk_mem(self) -> int:
        return self.chunk_size * torch.empty(0, dtype=self.dtype).element_size()

    def append_tensor(self, tensor: torch.Tensor) -> None:
        begin, end = self.utilized_size, self.utilized_size + tensor.numel()
        self.cuda_shard[begin:end].copy_(tensor.data.view(-1))
        self.tensors_info[tensor] = (begin, end)
        tensor.data = self.cuda_shard[begin:end].view(tensor.shape)
        self.utilized_size = end

    def copy_tensor_to_chunk_slice(self, tensor: torch.Tensor, data: torch.Tensor) -> None:
        begin, end = self.tensors_info[tensor]
        self.cuda_shard[begin:end].copy_(data.view(-1))
        self.cpu_vis_flag = False

    def shard_move(self, device: torch.device, force_copy: bool = False) -> None:
        """Move the shard; the caller decides which stream the copy runs on."""
        if device.type == "cuda":
            if self.cuda_shard is not None:
                return
            self.cuda_shard = self.cpu_shard.to(device, non_blocking=True)
        else:
            if self.cuda_shard is None:
                return
            if self.cpu_shard is None:
                self.cpu_shard = torch.empty(self.chunk_size, dtype=self.dtype, pin_memory=self.pin_memory)
            if force_copy or not self.cpu_vis_flag:
                self.cpu_shard.copy_(self.cuda_shard, non_blocking=True)
                self.cpu_vis_flag = True
            self.cuda_shard.record_stream(torch.cuda.current_stream())
            self.cuda_shard = None
        self._update_tensors_ptr()

    def _update_tensors_ptr(self) -> None:
        src = self.cuda_shard if self.cuda_shard is not None else self.cpu_shard
        for tensor, (begin, end) in self.tensors_info.items():
            tensor.data = src[begin:end].view(tensor.shape)
