import torch

from zenflow.config import ZenFlowConfig
from zenflow.optimizer import ZenFlowSelectiveOptimizer


def finetune(model, loader, steps, config=None):
    config = config or ZenFlowConfig()
    optimizer = ZenFlowSelectiveOptimizer([p for p in model.parameters() if p.requires_grad], config)
    for step, batch in zip(range(steps), loader):
        batch = {k: v.to("cuda", non_blocking=True) for k, v in batch.items()}
        loss = model(**batch).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    optimizer._finish_pending()
    return model
