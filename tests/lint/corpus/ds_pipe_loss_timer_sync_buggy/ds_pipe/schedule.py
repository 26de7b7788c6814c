# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0


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


class LoadMicroBatch(BufferOpInstruction):
    pass


class ForwardPass(BufferOpInstruction):
    pass


class BackwardPass(BufferOpInstruction):
    pass


class ReduceGrads(PipeInstruction):
    pass


class OptimizerStep(PipeInstruction):
    pass


class LastStageTrainSchedule:
    """1F1B as seen by the last stage: every micro-batch forward is followed by its backward."""

    def __init__(self, micro_batches, num_buffers=2):
        self.micro_batches = micro_batches
        self.num_buffers = num_buffers

    def steps(self):
        for mb in range(self.micro_batches):
            buffer_id = mb % self.num_buffers
            yield [LoadMicroBatch(buffer_id), ForwardPass(buffer_id)]
            yield [BackwardPass(buffer_id)]
        yield [ReduceGrads(), OptimizerStep()]
