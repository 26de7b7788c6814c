from dsswap.swapper import GradSwapper


class OffloadEngine:
    def __init__(self, module, numel):
        self.module = module
        self.swapper = GradSwapper(numel)

    def train_step(self, batch):
        self.swapper.begin_step()
        loss = self.module(batch)
        self.module.backward(loss, self.swapper.fp32_grad)
        self.swapper.swap_out()
        return self.swapper.end_step()
