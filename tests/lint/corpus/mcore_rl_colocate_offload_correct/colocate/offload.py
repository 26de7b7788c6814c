"""Sleep / wake of the training state around a rollout."""

from contextlib import contextmanager

import torch

from colocate.optim_states import iter_adam_states


class ColocatedStateOffloader:
    def __init__(self, snapshot_dir=None):
        self.offload_stream = torch.cuda.Stream()
        self.snapshot_dir = snapshot_dir
        self.host_tensors = {}
        self.offloaded = False

    def _host_for(self, key, like):
        host = self.host_tensors.get(key)
        if host is None or host.shape != like.shape:
            host = torch.empty(like.shape, dtype=like.dtype, pin_memory=True)
            self.host_tensors[key] = host
        return host

    def offload(self, buffers, optimizer, iteration):
        # the last optimizer step wrote the parameters and the Adam states on the compute stream
        trained = torch.cuda.Event()
        trained.record()
        self.offload_stream.wait_event(trained)
        with torch.cuda.stream(self.offload_stream):
            for buf in buffers:
                host = self._host_for(buf.name, buf.param_data)
                host.copy_(buf.param_data, non_blocking=True)
            for key, state in iter_adam_states(optimizer):
                host = self._host_for(key, state)
                host.copy_(state, non_blocking=True)
        # the device storage is released below: every copy out of it has to be done
        self.offload_stream.synchronize()
        if self.snapshot_dir is not None:
            torch.save(self.host_tensors, f"{self.snapshot_dir}/actor_state_{iteration}.pt")
        for buf in buffers:
            buf.release_device_storage()
        for _, state in iter_adam_states(optimizer):
            state.untyped_storage().resize_(0)
        self.offloaded = True

    def onload(self, buffers, optimizer):
        if not self.offloaded:
            return
        for buf in buffers:
            buf.restore_device_storage()
            buf.param_data.copy_(self.host_tensors[buf.name], non_blocking=True)
        for key, state in iter_adam_states(optimizer):
            state.untyped_storage().resize_(state.numel() * state.element_size())
            state.copy_(self.host_tensors[key], non_blocking=True)
        self.offloaded = False


@contextmanager
def released_for_rollout(offloader, buffers, optimizer, iteration):
    offloader.offload(buffers, optimizer, iteration)
    torch.cuda.empty_cache()
    try:
        yield
    finally:
        offloader.onload(buffers, optimizer)
