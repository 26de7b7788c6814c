"""Per-key optimizer-state offload in the shape of DeepSpeed's ZeRO offload_states helpers: one
pinned host buffer and two events per state key held in dicts, a copy stream from the accelerator,
and a hook the optimizer calls after it updates each key. The hook records the key's "ready" event
on the compute stream, the copy stream waits on it before the key's copy, and ``export`` waits for
each key's "done" event before reading its pinned buffer."""

import torch
from deepspeed.accelerator import get_accelerator


class StateOffloader:
    def __init__(self):
        self.copy_stream = get_accelerator().Stream()
        self.pinned = {}
        self.ready_events = {}
        self.done_events = {}

    def _buffer_for(self, key, like):
        if key not in self.pinned:
            self.pinned[key] = get_accelerator().pin_memory(torch.empty_like(like, device="cpu"))
        return self.pinned[key]

    def mark_updated(self, key):
        ready = get_accelerator().Event()
        ready.record(get_accelerator().current_stream())
        self.ready_events[key] = ready

    def offload(self, key, device_tensor):
        buffer = self._buffer_for(key, device_tensor)
        self.copy_stream.wait_event(self.ready_events[key])
        with get_accelerator().stream(self.copy_stream):
            buffer.copy_(device_tensor, non_blocking=True)
        done = get_accelerator().Event()
        done.record(self.copy_stream)
        self.done_events[key] = done

    def offload_all(self, optimizer):
        for group_index, group in enumerate(optimizer.param_groups):
            for param_index, param in enumerate(group["params"]):
                state = optimizer.state[param]
                for name in ("exp_avg", "exp_avg_sq"):
                    if name in state:
                        key = (group_index, param_index, name)
                        self.offload(key, state[name])

    def export(self, handle):
        for key, buffer in self.pinned.items():
            self.done_events[key].synchronize()
            handle.write(bytes(buffer.numpy()))


def step_with_offload(optimizer, offloader):
    optimizer.step()
    for group_index, group in enumerate(optimizer.param_groups):
        for param_index, param in enumerate(group["params"]):
            for name in ("exp_avg", "exp_avg_sq"):
                if name in optimizer.state[param]:
                    offloader.mark_updated((group_index, param_index, name))
    offloader.offload_all(optimizer)


def step_and_checkpoint(optimizer, offloader, path):
    step_with_offload(optimizer, offloader)
    with open(path, "wb") as handle:
        offloader.export(handle)
