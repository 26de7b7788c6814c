# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""A pipeline stage engine (the shape of deepspeed.runtime.pipe.engine.PipelineEngine) with
checkpointed stage inputs parked in host memory."""

import torch
import torch.distributed as dist
from deepspeed.accelerator import get_accelerator

from .ckpt_offload import CheckpointOffloadMixin
from .schedule import BackwardPass, ForwardPass, RecvActivation, num_pipe_buffers, one_forward_one_backward


class OffloadingPipelineEngine(CheckpointOffloadMixin):

    def __init__(self, module, data_iterator, stage_id, num_stages, micro_batches, micro_batch_shape,
                 dtype=torch.bfloat16):
        self.module = module
        self.data_iterator = data_iterator
        self.stage_id = stage_id
        self.num_stages = num_stages
        self.device = torch.device(get_accelerator().device_name(), get_accelerator().current_device())
        self.micro_batches = micro_batches
        nbuf = num_pipe_buffers(micro_batches, stage_id, num_stages)
        self.pipe_buffers = {
            "inputs": [torch.empty(micro_batch_shape, dtype=dtype, device=self.device) for _ in range(nbuf)],
            "outputs": [None] * nbuf,
        }
        self.init_checkpoint_offload()

    def _exec_load_micro_batch(self, buffer_id):
        batch = next(self.data_iterator)
        self.wait_checkpoint_read(buffer_id)
        self.pipe_buffers["inputs"][buffer_id].copy_(batch, non_blocking=True)

    def _exec_recv_activations(self, buffer_id):
        buffer = self.pipe_buffers["inputs"][buffer_id]
        self.wait_checkpoint_read(buffer_id)
        dist.recv(buffer, src=self.stage_id - 1)

    def _exec_forward_pass(self, buffer_id):
        inputs = self.pipe_buffers["inputs"][buffer_id]
        with torch.no_grad():
            outputs = self.module(inputs)
        self.pipe_buffers["outputs"][buffer_id] = outputs
        self.park_checkpoint(buffer_id, inputs)
        if self.stage_id < self.num_stages - 1:
            dist.send(outputs, dst=self.stage_id + 1)

    def _exec_backward_pass(self, buffer_id):
        inputs = self.restore_checkpoint(buffer_id).requires_grad_()
        outputs = self.module(inputs)
        grad = torch.empty_like(outputs)
        if self.stage_id < self.num_stages - 1:
            dist.recv(grad, src=self.stage_id + 1)
        else:
            grad.fill_(1.0 / outputs.numel())
        torch.autograd.backward(outputs, grad_tensors=grad)
        if self.stage_id > 0:
            dist.send(inputs.grad, dst=self.stage_id - 1)

    def train_batch(self):
        for step in one_forward_one_backward(self.micro_batches, self.stage_id, self.num_stages):
            for cmd in step:
                if isinstance(cmd, RecvActivation):
                    if self.stage_id > 0:
                        self._exec_recv_activations(cmd.buffer_id)
                    else:
                        self._exec_load_micro_batch(cmd.buffer_id)
                elif isinstance(cmd, ForwardPass):
                    self._exec_forward_pass(cmd.buffer_id)
                elif isinstance(cmd, BackwardPass):
                    self._exec_backward_pass(cmd.buffer_id)
