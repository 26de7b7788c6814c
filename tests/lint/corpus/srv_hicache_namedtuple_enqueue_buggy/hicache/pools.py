import torch


class DeviceTokenPool:
    def __init__(self, num_tokens, token_numel, dtype=torch.bfloat16):
        self.kv = torch.zeros(num_tokens, token_numel, dtype=dtype, device="cuda")


class HostTokenPool:
    def __init__(self, num_tokens, token_numel, dtype=torch.bfloat16):
        self.kv = torch.zeros(num_tokens, token_numel, dtype=dtype, pin_memory=True)
        self.free_slots = list(range(num_tokens))

    def alloc(self, n):
        if n > len(self.free_slots):
            return None
        taken, self.free_slots = self.free_slots[:n], self.free_slots[n:]
        return taken
