"""Two input pairs made by one comprehension; the loop alternates between them. Nothing waits
for the compute stream before a pair's device buffer is loaded again, and no event of a pair is
ever waited on: the load into a pair may land while the kernels of two steps ago still read it."""

import torch


class InputPair:
    def __init__(self, n: int, device: torch.device):
        self.host = torch.zeros(n, dtype=torch.int64, pin_memory=True)
        self.device = torch.zeros(n, dtype=torch.int64, device=device)
        self.loaded = torch.cuda.Event()


class PairedInputs:
    def __init__(self, n: int, device: torch.device):
        self.pairs = [InputPair(n, device) for _ in range(2)]
        self.current = 0
        self.h2d = torch.cuda.Stream(device=device)

    def load(self, tokens: list) -> torch.Tensor:
        pair = self.pairs[self.current]
        pair.host[: len(tokens)] = torch.tensor(tokens)
        with torch.cuda.stream(self.h2d):
            # expect: KVG004
            pair.device.copy_(pair.host, non_blocking=True)
            pair.loaded.record()
        torch.cuda.current_stream().wait_event(pair.loaded)
        self.current = 1 - self.current
        return pair.device
