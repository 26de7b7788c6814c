"""Stages a (possibly nested) state dict into cached pinned host buffers."""
import copy
from dataclasses import dataclass
from typing import Any, Dict

import torch

STATE_DICT_SEP = "."


def flatten_state_dict(state_dict: Dict[str, Any], prefix: str = "") -> Dict[str, Any]:
    flat: Dict[str, Any] = {}
    for key, value in state_dict.items():
        fqn = f"{prefix}{STATE_DICT_SEP}{key}" if prefix else str(key)
        if isinstance(value, dict):
            flat.update(flatten_state_dict(value, fqn))
        else:
            flat[fqn] = value
    return flat


@dataclass
class StagedStateDict:
    step: int
    state_dict: Dict[str, Any]
    nbytes: int


class PinnedMemoryStager:

    def __init__(self, cache_staged_state_dict: bool = True):
        self.cache_staged_state_dict = cache_staged_state_dict
        self._cache: Dict[str, torch.Tensor] = {}
        self._stream = torch.cuda.Stream()

    def _host_buffer(self, fqn: str, tensor: torch.Tensor) -> torch.Tensor:
        buf = self._cache.get(fqn)
        if buf is None or buf.shape != tensor.shape or buf.dtype != tensor.dtype:
            buf = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=True)
            if self.cache_staged_state_dict:
                self._cache[fqn] = buf
        return buf

    @torch.no_grad()
    def stage(self, state_dict: Dict[str, Any], step: int) -> StagedStateDict:
        staged: Dict[str, Any] = {}
        nbytes = 0
        with torch.cuda.stream(self._stream):
            for fqn, value in flatten_state_dict(state_dict).items():
                if isinstance(value, torch.Tensor) and value.is_cuda:
                    buf = self._host_buffer(fqn, value)
                    # expect: KVG001
                    buf.copy_(value.detach(), non_blocking=True)
                    staged[fqn] = buf
                    nbytes += buf.numel() * buf.element_size()
                elif isinstance(value, torch.Tensor):
                    staged[fqn] = value.detach().clone()
                else:
                    staged[fqn] = copy.deepcopy(value)
        # the training loop may update the sources right after we return
        torch.cuda.current_stream().wait_stream(self._stream)
        return StagedStateDict(step=step, state_dict=staged, nbytes=nbytes)
