# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

import logging
from typing import Dict, List

import torch

from pipe_offload.activation_swapper import ActivationSwapper

logger = logging.getLogger(__name__)


class PipelineEngine:
    """Executes one pipeline stage with CPU-checkpointed activations."""

    def __init__(self, stage_module: torch.nn.Module, micro_batches: int, activation_shape, dtype=torch.half):
        self.module = stage_module
        self.micro_batches = micro_batches
        self.swapper = ActivationSwapper(activation_shape, dtype)
        self.pipe_buffers: Dict[str, Dict[int, torch.Tensor]] = {"inputs": {}, "outputs": {}, "grads": {}}

    def _exec_forward_pass(self, micro_batch_id: int) -> None:
        inputs = self.pipe_buffers["inputs"].pop(micro_batch_id)
        with torch.no_grad():
            outputs = self.module(inputs)
        self.swapper.swap_out(micro_batch_id, inputs)
        self.pipe_buffers["outputs"][micro_batch_id] = outputs

    def _exec_prefetch_activation(self, micro_batch_id: int) -> None:
        self.swapper.swap_in(micro_batch_id)

    def _exec_backward_pass(self, micro_batch_id: int) -> torch.Tensor:
        saved = self.swapper.get(micro_batch_id)
        self.swapper.release(micro_batch_id)
        grad_output = self.pipe_buffers["grads"].pop(micro_batch_id)
        with torch.enable_grad():
            x = saved.detach().requires_grad_(True)
            out = self.module(x)
            torch.autograd.backward(out, grad_tensors=grad_output)
        return x.grad

    def train_batch(self, inputs: List[torch.Tensor], output_grads: List[torch.Tensor]) -> List[torch.Tensor]:
        for mb, (inp, g) in enumerate(zip(inputs, output_grads)):
            self.pipe_buffers["inputs"][mb] = inp
            self.pipe_buffers["grads"][mb] = g
        for mb in range(self.micro_batches):
            self._exec_forward_pass(mb)
        self.pipe_buffers["outputs"].clear()

        input_grads = []
        self._exec_prefetch_activation(0)
        for mb in range(self.micro_batches):
            if mb + 1 < self.micro_batches:
                self._exec_prefetch_activation(mb + 1)
            input_grads.append(self._exec_backward_pass(mb))
        return input_grads
