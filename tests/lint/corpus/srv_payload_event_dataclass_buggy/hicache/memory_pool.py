import torch


class DeviceKVPool:
    def __init__(self, size, numel):
        self.kv = torch.zeros(size, numel, dtype=torch.bfloat16, device="cuda")


class HostKVPool:
    def __init__(self, size, numel):
        self.kv = torch.empty(size, numel, dtype=torch.bfloat16, pin_memory=True)
        self.free = list(range(size))

    def alloc(self, n):
        if n > len(self.free):
            return None
        out, self.free = self.free[:n], self.free[n:]
        return out
