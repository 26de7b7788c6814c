"""A pipeline stage whose layers run on its own compute stream inside an asyncio loop."""

import torch

from actoffload.offloader import ActivationDumper


class Stage:
    def __init__(self, weights, batch, device, directory):
        self.weights = weights
        self.compute = torch.cuda.Stream(device=device)
        self.acts = [torch.empty(batch, w.shape[1], device=device) for w in weights]
        self.dumper = ActivationDumper([device], directory)

    async def forward(self, x, step):
        with torch.cuda.stream(self.compute):
            for i, w in enumerate(self.weights):
                torch.matmul(x, w, out=self.acts[i])
                torch.relu_(self.acts[i])
                x = self.acts[i]
                await self.dumper.dump(f"step{step}-layer{i}", self.acts[i])
        return x
