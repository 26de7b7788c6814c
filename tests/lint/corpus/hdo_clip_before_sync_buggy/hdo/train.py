import torch
import torch.nn.functional as F

from .hybrid_optimizer import HybridDeviceOptimizer


def train(model, loader, steps, lr=1e-4):
    optimizer = HybridDeviceOptimizer(
        model.parameters(),
        cpu_optimizer_cls=torch.optim.AdamW,
        gpu_optimizer_cls=torch.optim.AdamW,
        offload_fraction=0.5,
        lr=lr,
    )
    history = []
    for _, (inputs, labels) in zip(range(steps), loader):
        logits = model(inputs.cuda(non_blocking=True))
        loss = F.cross_entropy(logits, labels.cuda(non_blocking=True))
        loss.backward()
        history.append(optimizer.step())
        optimizer.zero_grad(set_to_none=True)
    return history
