import torch

from .checkpointer import AsyncCheckpointer


def train(model, optimizer, loader, ckpt_dir, every=500):
    ckpt = AsyncCheckpointer(ckpt_dir)
    model.cuda().train()
    for step, (x, y) in enumerate(loader):
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % every == 0:
            ckpt.save(model.state_dict(), step)
