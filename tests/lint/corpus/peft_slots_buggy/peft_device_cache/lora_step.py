import logging

import torch

from .device_cache import DeviceSlotCache

logger = logging.getLogger(__name__)


class LoraStepRunner:
    """Per step: make every adapter of the batch resident, then run the grouped LoRA GEMM."""

    def __init__(self, cache: DeviceSlotCache, num_device_slots: int, lora_gemm=None):
        self._cache = cache
        self._num_slots = num_device_slots
        self._lora_gemm = lora_gemm or torch.ops.trtllm.lora_grouped_gemm

    def run(self, hidden: torch.Tensor, adapter_ids: list[int], seq_lens: torch.Tensor) -> torch.Tensor:
        distinct = list(dict.fromkeys(adapter_ids))
        if len(distinct) > self._num_slots:
            raise ValueError(f"batch uses {len(distinct)} adapters, only {self._num_slots} slots")
        handle = torch.cuda.current_stream().cuda_stream
        slots = {a: self._cache.ensure_resident(a) for a in distinct}
        for slot in slots.values():
            self._cache.wait_loaded(slot, handle)
            self._cache.release_after(slot, handle)
        ptrs = torch.tensor([self._cache.slot_ptr(slots[a]) for a in adapter_ids],
                            dtype=torch.int64, device=hidden.device)
        out = self._lora_gemm(hidden, ptrs, seq_lens)
        logger.debug("lora step over %d adapters", len(distinct))
        return out
