import torch

from emasnap import EmaSnapshotter


def train(model, optimizer, loader, out_dir, steps):
    model.cuda().train()
    ema = EmaSnapshotter(model, out_dir)
    step = 0
    for inputs, targets in loader:
        inputs = inputs.cuda(non_blocking=True)
        targets = targets.cuda(non_blocking=True)
        loss = torch.nn.functional.cross_entropy(model(inputs), targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        ema.update(model)
        step += 1
        ema.maybe_snapshot(step)
        if step == steps:
            break
    ema.writer.wait_idle()
    return ema
