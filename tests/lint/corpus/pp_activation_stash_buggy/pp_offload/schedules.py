# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
from collections import deque
from typing import Callable, Iterator, List

import torch

from . import cudart
from .activation_stash import MicrobatchActivationStash
from .config import PipelineOffloadConfig


def get_num_warmup_microbatches(config: PipelineOffloadConfig) -> int:
    return min(config.pipeline_model_parallel_size - config.pipeline_model_parallel_rank - 1,
               config.num_microbatches)


def _stash_after_forward(stash: MicrobatchActivationStash, microbatch_id: int, hidden: torch.Tensor,
                         compute_stream: int) -> None:
    cudart.record_event(stash.forward_done, compute_stream)
    cudart.stream_wait_event(stash.offload_stream, stash.forward_done)
    stash.offload(microbatch_id, hidden)


def forward_backward_pipelining_with_offload(*, forward_step_func: Callable, backward_step_func: Callable,
                                             data_iterator: Iterator, model: torch.nn.Module, p2p,
                                             config: PipelineOffloadConfig,
                                             stash: MicrobatchActivationStash) -> List[torch.Tensor]:
    """Non-interleaved 1F1B. `forward_step_func` returns `(output_tensor, recompute_input)`;
    `backward_step_func(input_tensor, output_tensor, output_tensor_grad, recompute_input)` returns the input grad."""
    compute_stream = torch.cuda.current_stream().cuda_stream
    num_warmup = get_num_warmup_microbatches(config)
    num_remaining = config.num_microbatches - num_warmup
    in_flight = deque()
    losses: List[torch.Tensor] = []

    for microbatch_id in range(num_warmup):
        input_tensor = p2p.recv_forward()
        output_tensor, hidden = forward_step_func(data_iterator, model, input_tensor)
        p2p.send_forward(output_tensor)
        _stash_after_forward(stash, microbatch_id, hidden, compute_stream)
        in_flight.append((microbatch_id, input_tensor, output_tensor))

    input_tensor = p2p.recv_forward() if num_remaining > 0 else None
    for i in range(num_remaining):
        microbatch_id = num_warmup + i
        output_tensor, hidden = forward_step_func(data_iterator, model, input_tensor)
        stash.offload(microbatch_id, hidden)
        output_tensor_grad = p2p.send_forward_recv_backward(output_tensor)
        in_flight.append((microbatch_id, input_tensor, output_tensor))
        if output_tensor.dim() == 0:
            losses.append(output_tensor.detach())

        bwd_id, bwd_input, bwd_output = in_flight.popleft()
        recompute_input = stash.reload(bwd_id, compute_stream)
        input_tensor_grad = backward_step_func(bwd_input, bwd_output, output_tensor_grad, recompute_input)
        if i == num_remaining - 1:
            p2p.send_backward(input_tensor_grad)
            input_tensor = None
        else:
            input_tensor = p2p.send_backward_recv_forward(input_tensor_grad)

    while in_flight:
        bwd_id, bwd_input, bwd_output = in_flight.popleft()
        output_tensor_grad = p2p.recv_backward()
        recompute_input = stash.reload(bwd_id, compute_stream)
        p2p.send_backward(backward_step_func(bwd_input, bwd_output, output_tensor_grad, recompute_input))
    return losses
