# SPDX-License-Identifier: Apache-2.0
"""The stage-3 optimizer's offload_states / reload_states."""

from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .offload_config import OffloadDeviceEnum, OffloadStateTypeEnum, OffloadStatesConfig
from .offload_states import adam_state_items, offload_tensor, reload_tensor


class Stage3StatesMixin:
    """Mixed into the ZeRO-3 optimizer; expects ``fp32_partitioned_groups_flat``,
    ``lp_param_buffer`` and ``optimizer`` (the wrapped torch optimizer)."""

    def _init_state_offload(self, offload_config: OffloadStatesConfig = None):
        self.offload_config = offload_config or OffloadStatesConfig()
        self._offload_stream = get_accelerator().Stream()
        self._offload_done = get_accelerator().Event()
        self._host_states = {}
        self.offloaded_states = set()

    def _state_stream(self):
        accel = get_accelerator()
        return self._offload_stream if self.offload_config.overlap_comm else accel.current_stream()

    def offload_states(self, include=None, device=OffloadDeviceEnum.cpu, non_blocking=False):
        assert device == OffloadDeviceEnum.cpu, "only CPU offloading of states is supported"
        include = set(include or list(OffloadStateTypeEnum))
        pin = self.offload_config.pin_memory
        accel = get_accelerator()
        stream = self._state_stream()
        with accel.stream(stream):
            if OffloadStateTypeEnum.hp_params in include:
                for i, flat in enumerate(self.fp32_partitioned_groups_flat):
                    host = offload_tensor(flat.data, self._host_states, ("hp", i), pin, True)
                    flat.data.record_stream(stream)
                    flat.data = host
                self.offloaded_states.add(OffloadStateTypeEnum.hp_params)
            if OffloadStateTypeEnum.optim_states in include:
                for key, state, name in adam_state_items(self.optimizer):
                    host = offload_tensor(state[name], self._host_states, key, pin, True)
                    state[name].record_stream(stream)
                    state[name] = host
                self.offloaded_states.add(OffloadStateTypeEnum.optim_states)
            if OffloadStateTypeEnum.lp_params in include:
                host = offload_tensor(self.lp_param_buffer, self._host_states, ("lp",), pin, True)
                self.lp_param_buffer.record_stream(stream)
                self.lp_param_buffer = host
                self.offloaded_states.add(OffloadStateTypeEnum.lp_params)
        self._offload_done.record(stream)
        if not non_blocking:
            self._offload_done.synchronize()
        logger.info(f"offloaded {sorted(s.value for s in self.offloaded_states)}")

    def reload_states(self, non_blocking=False):
        accel = get_accelerator()
        device = accel.current_device_name()
        stream = self._state_stream()
        # fresh device memory comes from the compute stream's pool
        stream.wait_stream(accel.current_stream())
        with accel.stream(stream):
            if OffloadStateTypeEnum.hp_params in self.offloaded_states:
                for i, flat in enumerate(self.fp32_partitioned_groups_flat):
                    flat.data = reload_tensor(flat.data, device, True)
            if OffloadStateTypeEnum.optim_states in self.offloaded_states:
                for _, state, name in adam_state_items(self.optimizer):
                    state[name] = reload_tensor(state[name], device, True)
            if OffloadStateTypeEnum.lp_params in self.offloaded_states:
                self.lp_param_buffer = reload_tensor(self.lp_param_buffer, device, True)
        accel.current_stream().wait_stream(stream)
        if not non_blocking:
            accel.synchronize()
        self.offloaded_states.clear()
