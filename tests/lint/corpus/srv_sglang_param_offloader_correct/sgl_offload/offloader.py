"""Wrapping decoder layers for weight offload."""

import logging

import torch
from torch.func import functional_call

from sgl_offload.envs import OFFLOAD_GROUP_SIZE, OFFLOAD_NUM_IN_GROUP, OFFLOAD_PREFETCH_STEP
from sgl_offload.param_utils import move_param_to_cpu
from sgl_offload.static_buffers import StaticDeviceBuffers

logger = logging.getLogger(__name__)


class ModuleOffloader:
    def __init__(self):
        self.group_size = OFFLOAD_GROUP_SIZE
        self.num_offload_in_group = OFFLOAD_NUM_IN_GROUP
        self.prefetch_step = OFFLOAD_PREFETCH_STEP
        self.enabled = self.group_size > 0
        self.offloaders = []

    def wrap_modules(self, all_modules_generator, submodule_accessor, whitelist_param_names_creator):
        if not self.enabled:
            return list(all_modules_generator)
        alt_stream = torch.cuda.Stream()
        buffers = StaticDeviceBuffers(self.prefetch_step + 1)
        all_modules, offload_submodules = [], []
        for module_index, module in enumerate(all_modules_generator):
            all_modules.append(module)
            if module_index % self.group_size >= self.group_size - self.num_offload_in_group:
                submodule = submodule_accessor(module)
                slot = len(self.offloaders) % buffers.num_slots
                offload_submodules.append(submodule)
                self.offloaders.append(
                    _ModuleOffloader(submodule, alt_stream, whitelist_param_names_creator(submodule), buffers, slot)
                )
        for index, submodule in enumerate(offload_submodules):
            _hook_module_forward_for_offloader(index, submodule, self.offloaders, self.prefetch_step)
        logger.info("offloading %d modules, prefetch step %d", len(self.offloaders), self.prefetch_step)
        return all_modules

    def post_init(self):
        if not self.enabled:
            return
        for i in range(min(self.prefetch_step, len(self.offloaders))):
            self.offloaders[i].start_onload()


def _hook_module_forward_for_offloader(index, module, offloaders, prefetch_step):
    def _on_forward_end():
        offloaders[(index + prefetch_step) % len(offloaders)].start_onload()
        offloaders[index].offload()

    _hook_module_forward_raw(
        module,
        on_forward_end=_on_forward_end,
        get_parameter_and_buffer_dicts=lambda: offloaders[index].wait_and_get_device_tensors(),
    )


def _hook_module_forward_raw(module, on_forward_end, get_parameter_and_buffer_dicts):
    original_forward = module.forward

    def forward(*args, **kwargs):
        module.forward = original_forward
        output = functional_call(module, get_parameter_and_buffer_dicts(), args=args, kwargs=kwargs)
        on_forward_end()
        module.forward = forward
        return output

    module.forward = forward


class _ModuleOffloader:
    def __init__(self, module, alt_stream, whitelist_param_names, buffers, slot):
        self.module = module
        self.alt_stream = alt_stream
        self._device_tensors = None
        self._load_event = None
        self._param_offloaders = {
            name: _CpuParamOffloader(module, name, buffers, slot) for name in whitelist_param_names
        }

    def start_onload(self):
        # the slot's buffers were last read by an earlier layer whose kernels may still be queued
        self.alt_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.alt_stream):
            self._device_tensors = {name: p.create_device_tensor() for name, p in self._param_offloaders.items()}
            self._load_event = torch.cuda.Event()
            self._load_event.record()

    def offload(self):
        self._device_tensors = None
        self._load_event = None

    def wait_and_get_device_tensors(self):
        assert self._device_tensors is not None
        torch.cuda.current_stream().wait_event(self._load_event)
        return self._device_tensors


class _CpuParamOffloader:
    def __init__(self, module, param_name, buffers, slot):
        self._module = module
        self._param_name = param_name
        self._buffers = buffers
        self._slot = slot
        buffers.reserve(slot, param_name, self._param.data)
        move_param_to_cpu(self._param)

    @property
    def _param(self):
        return getattr(self._module, self._param_name)

    def create_device_tensor(self):
        host = self._param.data
        device_tensor = self._buffers.view(self._slot, self._param_name, host)
        device_tensor.copy_(host, non_blocking=True)
        return device_tensor
