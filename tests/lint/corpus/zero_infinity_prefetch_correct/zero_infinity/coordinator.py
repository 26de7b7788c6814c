import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .param_status import ZeroParamStatus, iter_params
from .prefetch_trace import ModuleTrace


class PartitionedParameterCoordinator:
    """Fetches offloaded parameters for sub-modules and prefetches upcoming ones
    on a dedicated stream while the current module computes."""

    def __init__(self, prefetch_depth=2, max_available_parameters_in_numel=1_000_000_000, allgather_stream=None):
        self.prefetch_depth = prefetch_depth
        self.max_available_parameters_in_numel = max_available_parameters_in_numel
        self.__allgather_stream = allgather_stream or get_accelerator().Stream()
        self.__inflight_param_events = {}
        self.__n_available_params = 0
        self.trace = ModuleTrace()

    @property
    def n_available_params(self):
        return self.__n_available_params

    @torch.no_grad()
    def fetch_sub_module(self, current_submodule):
        self.trace.record(current_submodule)
        params = iter_params(current_submodule)
        self.__all_gather_params([p for p in params if p.ds_status == ZeroParamStatus.NOT_AVAILABLE])

        compute_stream = get_accelerator().current_stream()
        for param in params:
            event = self.__inflight_param_events.pop(param.ds_id, None)
            if event is not None:
                compute_stream.wait_event(event)
            param.data = param.ds_gpu_buffer
            param.ds_status = ZeroParamStatus.AVAILABLE

        budget = self.max_available_parameters_in_numel - self.__n_available_params
        to_prefetch = []
        for module in self.trace.next_modules(self.prefetch_depth):
            for param in iter_params(module):
                if param.ds_status == ZeroParamStatus.NOT_AVAILABLE and param.ds_numel <= budget:
                    budget -= param.ds_numel
                    to_prefetch.append(param)
        self.__all_gather_params(to_prefetch)

    def __all_gather_params(self, params):
        if not params:
            return
        with get_accelerator().stream(self.__allgather_stream):
            for param in params:
                param.ds_status = ZeroParamStatus.INFLIGHT
                param.ds_gpu_buffer.copy_(param.ds_cpu_tensor, non_blocking=True)
            event = get_accelerator().Event()
            event.record(self.__allgather_stream)
        for param in params:
            self.__inflight_param_events[param.ds_id] = event
            self.__n_available_params += param.ds_numel

    @torch.no_grad()
    def release_sub_module(self, submodule):
        for param in iter_params(submodule):
            if param.ds_persist or param.ds_status != ZeroParamStatus.AVAILABLE:
                continue
            param.data = param.ds_empty
            param.ds_status = ZeroParamStatus.NOT_AVAILABLE
            self.__n_available_params -= param.ds_numel
        # Released buffers are refilled by later gathers on the allgather stream; keep
        # that stream behind the kernels the compute stream has queued on them so far.
        self.__allgather_stream.wait_stream(get_accelerator().current_stream())

    def reset_step(self):
        if self.__inflight_param_events:
            logger.debug(f"{len(self.__inflight_param_events)} prefetched params unused at end of step")
        self.trace.end_of_forward()
