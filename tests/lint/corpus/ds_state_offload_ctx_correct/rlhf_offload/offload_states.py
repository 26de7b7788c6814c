from enum import Enum

import torch
from deepspeed.accelerator import get_accelerator


class OffloadStateTypeEnum(str, Enum):
    optim_states = "optim_states"
    lp_grads = "lp_grads"


def _offload_key(key):
    return f"{key}_offload_buffer"


class OffloadedOptimizerStates:
    """``with OffloadedOptimizerStates(optimizer):`` moves the Adam moments to pinned host memory for
    the duration of the block (on a side stream, so that the rollout can start launching while the
    moments drain) and reloads them on exit."""

    def __init__(self, optimizer, include=None, pin_memory=True):
        self.optimizer = optimizer
        self.include = set(include) if include is not None else {OffloadStateTypeEnum.optim_states}
        self.pin_memory = pin_memory
        self.device = get_accelerator().current_device_name()
        self.stream = get_accelerator().Stream()

    def _states(self):
        for group in self.optimizer.param_groups:
            for param in group["params"]:
                state = self.optimizer.state.get(param)
                if state:
                    yield state

    def _move_key_to_host(self, state, key):
        dev = state[key]
        buf_key = _offload_key(key)
        if buf_key not in state:
            host = torch.empty_like(dev, device="cpu")
            if self.pin_memory:
                host = get_accelerator().pin_memory(host)
            state[buf_key] = host
        state[buf_key].copy_(dev, non_blocking=True)
        # the moment's device memory goes back to the allocator while the copy may still read it
        dev.record_stream(self.stream)
        state[key] = state[buf_key]

    def __enter__(self):
        if OffloadStateTypeEnum.optim_states not in self.include:
            return self
        # the moments were last written by the optimizer step queued on the compute stream
        self.stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(self.stream):
            for state in self._states():
                for key in ("exp_avg", "exp_avg_sq"):
                    if key in state:
                        self._move_key_to_host(state, key)
        return self

    def __exit__(self, exc_type, exc, tb):
        if OffloadStateTypeEnum.optim_states not in self.include:
            return False
        # the reloads below run on the compute stream and read the pinned buffers
        get_accelerator().current_stream().wait_stream(self.stream)
        for state in self._states():
            for key in ("exp_avg", "exp_avg_sq"):
                if _offload_key(key) in state:
                    state[key] = state[_offload_key(key)].to(self.device, non_blocking=True)
        return False
