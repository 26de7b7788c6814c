# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

from types import MethodType

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from . import schedule
from .timer import SynchronizedWallClockTimer

BATCH_TIMER = "train_batch"


class LastStagePipelineEngine:

    def __init__(self, module, optimizer, loss_fn, config):
        self.module = module
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.config = config
        self.micro_batches = config["gradient_accumulation_steps"]
        self.num_pipe_buffers = 2
        self.pipe_buffers = {"inputs": [None] * self.num_pipe_buffers, "labels": [None] * self.num_pipe_buffers,
                             "losses": [None] * self.num_pipe_buffers}
        self.timers = SynchronizedWallClockTimer(synchronize=config.get("wall_clock_breakdown", False))
        self.mb_losses_host = get_accelerator().pin_memory(torch.zeros(self.micro_batches, dtype=torch.float32))
        self.mb_loss_events = [get_accelerator().Event() for _ in range(self.micro_batches)]
        self.fwd_micro_batch = 0
        self.global_steps = 0
        self.agg_train_loss = None
        self.data_iterator = None

    def _exec_load_micro_batch(self, buffer_id):
        inputs, labels = next(self.data_iterator)
        device = get_accelerator().current_device_name()
        self.pipe_buffers["inputs"][buffer_id] = inputs.to(device, non_blocking=True)
        self.pipe_buffers["labels"][buffer_id] = labels.to(device, non_blocking=True)

    def _exec_forward_pass(self, buffer_id):
        outputs = self.module(self.pipe_buffers["inputs"][buffer_id])
        loss = self.loss_fn(outputs, self.pipe_buffers["labels"][buffer_id])
        self.pipe_buffers["losses"][buffer_id] = loss
        # no host sync per micro-batch: the value is collected at the end of the batch
        self.mb_losses_host[self.fwd_micro_batch].copy_(loss.detach().float(), non_blocking=True)
        self.mb_loss_events[self.fwd_micro_batch].record()
        self.fwd_micro_batch += 1

    def _exec_backward_pass(self, buffer_id):
        loss = self.pipe_buffers["losses"][buffer_id]
        (loss / self.micro_batches).backward()
        self.pipe_buffers["losses"][buffer_id] = None

    def _exec_reduce_grads(self):
        pass

    def _exec_optimizer_step(self):
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.global_steps += 1

    _INSTRUCTION_MAP = {
        schedule.LoadMicroBatch: _exec_load_micro_batch,
        schedule.ForwardPass: _exec_forward_pass,
        schedule.BackwardPass: _exec_backward_pass,
        schedule.ReduceGrads: _exec_reduce_grads,
        schedule.OptimizerStep: _exec_optimizer_step,
    }

    def _exec_schedule(self, pipe_schedule):
        for step_cmds in pipe_schedule.steps():
            for cmd in step_cmds:
                if type(cmd) not in self._INSTRUCTION_MAP:
                    raise RuntimeError(f"{self.__class__.__name__} does not understand instruction {repr(cmd)}")
                self._exec_instr = MethodType(self._INSTRUCTION_MAP[type(cmd)], self)
                self._exec_instr(**cmd.kwargs)

    def _aggregate_total_loss(self):
        self.timers(BATCH_TIMER).stop()
        # the timer only synchronizes with wall_clock_breakdown: wait for the copies themselves
        for event in self.mb_loss_events[:self.fwd_micro_batch]:
            event.synchronize()
        losses = self.mb_losses_host.tolist()
        self.agg_train_loss = sum(losses) / self.micro_batches
        return self.agg_train_loss

    def train_batch(self, data_iter):
        self.data_iterator = data_iter
        self.module.train()
        self.fwd_micro_batch = 0
        self.timers(BATCH_TIMER).start()
        self._exec_schedule(schedule.LastStageTrainSchedule(self.micro_batches, self.num_pipe_buffers))
        loss = self._aggregate_total_loss()
        if self.global_steps % self.config.get("steps_per_print", 10) == 0:
            logger.info(f"steps: {self.global_steps} loss: {loss:0.4f} "
                        f"batch time (ms): {self.timers(BATCH_TIMER).elapsed() * 1000.0:.2f}")
        return loss
