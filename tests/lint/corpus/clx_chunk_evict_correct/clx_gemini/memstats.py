"""Samples CUDA memory at operator boundaries to drive the placement policy."""
import torch

from .chunk_manager import ChunkManager


class MemStatsCollector:
    def __init__(self, chunk_manager: ChunkManager):
        self._chunk_manager = chunk_manager
        self.overall_cuda: list[int] = []
        self.model_data_cuda: list[int] = []
        self.step_idx = 0

    def sample_overall_data(self) -> int:
        # sample at an operator boundary: everything queued so far must have run
        torch.cuda.synchronize(self._chunk_manager.device)
        used = torch.cuda.max_memory_allocated(self._chunk_manager.device)
        torch.cuda.reset_peak_memory_stats(self._chunk_manager.device)
        self.overall_cuda.append(used)
        self.model_data_cuda.append(self._chunk_manager.total_mem["cuda"])
        self.step_idx += 1
        return used

    def non_model_data_cuda(self) -> int:
        if not self.overall_cuda:
            return 0
        return max(o - m for o, m in zip(self.overall_cuda, self.model_data_cuda))
