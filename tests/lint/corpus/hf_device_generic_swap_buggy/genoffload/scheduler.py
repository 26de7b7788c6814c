"""One engine step: run the model over the paged blocks, then move preempted and resumed
sequences between device and host."""

from .swapper import BlockSwapper


class Engine:
    def __init__(self, model, num_blocks, block_shape):
        self.model = model
        self.swapper = BlockSwapper(num_blocks, block_shape)
        self.audit = {}

    def step(self, batch, preempted, resumed):
        logits = self.model(batch, self.swapper.gpu_blocks)
        if preempted:
            self.swapper.swap_out(preempted)
            self.audit.update(zip(preempted, self.swapper.checksums(preempted)))
        if resumed:
            self.swapper.swap_in(resumed)
        return logits
