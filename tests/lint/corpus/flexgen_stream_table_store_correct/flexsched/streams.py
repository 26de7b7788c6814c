"""The three transfer streams of the schedule, kept in one table keyed by role."""

import torch

ROLES = ("load_weight", "load_cache", "store_cache")


class StreamTable:
    def __init__(self, device):
        self.device = device
        self._streams = {role: torch.cuda.Stream(device=device) for role in ROLES}

    def __getitem__(self, role):
        return self._streams[role]

    def sync_all(self):
        torch.cuda.synchronize(self.device)
