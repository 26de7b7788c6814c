# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import os
from dataclasses import dataclass

from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from . import streams
from .checkpoint import snapshot_offloaded_states
from .constants import ADAM_STATE_KEYS, OFFLOAD_STATES_TIMER, RELOAD_STATES_TIMER, SNAPSHOT_FILE_TEMPLATE
from .states import move_back_key, move_key


@dataclass
class OffloadStatesConfig:
    snapshot_dir: str = "./offload_snapshots"
    snapshot_interval: int = 0
    reload_before_step: bool = True


class ZeroOptimizerStateOffloader(object):

    def __init__(self, optimizer, config, rank, timers=None):
        self.optimizer = optimizer
        self.config = config
        self.rank = rank
        self.timers = timers
        self.device = get_accelerator().current_device_name()
        self.offloaded = False

    def _timer(self, name, start):
        if self.timers is not None:
            (self.timers(name).start if start else self.timers(name).stop)()

    def _adam_states(self):
        for group in self.optimizer.param_groups:
            for param in group["params"]:
                state = self.optimizer.state.get(param)
                if state:
                    yield state

    def offload(self):
        if self.offloaded:
            return
        self._timer(OFFLOAD_STATES_TIMER, True)
        streams.lazy_init()
        streams.copy_stream.wait_stream(get_accelerator().current_stream())
        for state in self._adam_states():
            for key in ADAM_STATE_KEYS:
                move_key(state, key)
        streams.offload_event.record(streams.copy_stream)
        self.offloaded = True
        self._timer(OFFLOAD_STATES_TIMER, False)

    def reload(self):
        if not self.offloaded:
            return
        self._timer(RELOAD_STATES_TIMER, True)
        for state in self._adam_states():
            for key in ADAM_STATE_KEYS:
                move_back_key(state, key, self.device)
        streams.reload_event.record(streams.copy_stream)
        get_accelerator().current_stream().wait_event(streams.reload_event)
        self.offloaded = False
        self._timer(RELOAD_STATES_TIMER, False)

    def _snapshot_path(self, global_step):
        name = SNAPSHOT_FILE_TEMPLATE.format(rank=self.rank, step=global_step)
        return os.path.join(self.config.snapshot_dir, name)

    def on_step_begin(self, global_step):
        if self.config.reload_before_step:
            self.reload()

    def on_step_end(self, global_step):
        self.offload()
        interval = self.config.snapshot_interval
        if interval > 0 and global_step % interval == 0:
            snapshot_offloaded_states(self.optimizer, self._snapshot_path(global_step))
            logger.info(f"[Rank {self.rank}] step {global_step}: optimizer states offloaded and snapshotted")
