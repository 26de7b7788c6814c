"""Adam over fp32 partitions whose moments live on NVMe between steps."""

from deepspeed.ops.op_builder import FusedAdamBuilder

from .swapper import PipelinedStateSwapper


class SwappedAdam:
    def __init__(self, partitions, swap_folder, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        self.partitions = list(partitions)
        self.lr, self.betas, self.eps = lr, betas, eps
        self.step_count = 0
        self.adam_op = FusedAdamBuilder().load()
        max_numel = max(p.numel() for p in self.partitions)
        self.swapper = PipelinedStateSwapper(swap_folder, max_numel)

    def step(self):
        self.step_count += 1
        beta1, beta2 = self.betas
        for i, param in enumerate(self.partitions):
            numel = param.numel()
            exp_avg, exp_avg_sq = self.swapper.swap_in(i, numel, first=self.step_count == 1)
            self.adam_op.adam_update(
                param, param.grad, exp_avg, exp_avg_sq, self.lr, beta1, beta2, self.eps, self.step_count
            )
            self.swapper.swap_out(i, numel)
        self.swapper.flush()
