"""Two input pairs made by one comprehension; the loop alternates between them. The copy stream
waits for the compute stream before it loads a pair again."""

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
        self.h2d.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.h2d):
            pair.device.copy_(pair.host, non_blocking=True)
            pair.loaded.record()
        torch.cuda.current_stream().wait_event(pair.loaded)
        self.current = 1 - self.current
        return pair.device
