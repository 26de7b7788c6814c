# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Pipeline instructions (a subset of deepspeed.runtime.pipe.schedule)."""


class PipeInstruction:

    def __init__(self, **kwargs):
        self.name = self.__class__.__name__
        self.kwargs = kwargs
        for key, val in kwargs.items():
            setattr(self, key, val)

    def __repr__(self):
        args = ", ".join(f"{k}={v}" for k, v in self.kwargs.items())
        return f"{self.name}({args})"


class BufferOpInstruction(PipeInstruction):

    def __init__(self, buffer_id, **kwargs):
        super().__init__(buffer_id=buffer_id, **kwargs)


class RecvActivation(BufferOpInstruction):
    pass


class ForwardPass(BufferOpInstruction):
    pass


class BackwardPass(BufferOpInstruction):
    pass


def num_pipe_buffers(micro_batches, stage_id, stages):
    """Micro-batches a stage holds between their forward and their backward under 1F1B."""
    return max(2, min(stages - stage_id, micro_batches))


def one_forward_one_backward(micro_batches, stage_id, stages):
    """1F1B: warm-up forwards, steady state, cool-down backwards."""
    nbuf = num_pipe_buffers(micro_batches, stage_id, stages)
    warmup = min(stages - stage_id - 1, micro_batches)
    steps = []
    fwd = bwd = 0
    for _ in range(warmup):
        steps.append([RecvActivation(fwd % nbuf), ForwardPass(fwd % nbuf)])
        fwd += 1
    while bwd < micro_batches:
        if fwd < micro_batches:
            steps.append([RecvActivation(fwd % nbuf), ForwardPass(fwd % nbuf)])
            fwd += 1
        steps.append([BackwardPass(bwd % nbuf)])
        bwd += 1
    return steps
