import torch

from .config import ZeroOffloadConfig
from .optimizer import ZeroCPUOffloadOptimizer


def build(model):
    return ZeroCPUOffloadOptimizer(model.parameters(), ZeroOffloadConfig(overlap_comm=True))


def train(model, optimizer, batches):
    for inputs, labels in batches:
        logits = model(inputs.cuda(non_blocking=True))
        loss = torch.nn.functional.cross_entropy(logits, labels.cuda(non_blocking=True))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
