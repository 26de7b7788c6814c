"""Column selection by gradient norm (on the device)."""

import torch


@torch.no_grad()
def select_columns(grad, k):
    col_norms = grad.float().pow(2).sum(dim=0)
    important = torch.topk(col_norms, k, sorted=False).indices
    mask = torch.ones(grad.shape[1], dtype=torch.bool, device=grad.device)
    mask[important] = False
    rest = mask.nonzero(as_tuple=True)[0]
    return important.sort().values, rest
