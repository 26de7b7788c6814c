"""Engine wiring: sub-groups over the model's parameters and post-accumulate-grad hooks that
fold each gradient into its sub-group's flat buffer and fire the offload when it is complete."""

import torch

from superoffload.optimizer import SuperOffloadOptimizer
from superoffload.sub_group import SubGroup


def _partition(params, max_numel):
    groups, current, size = [], [], 0
    for p in params:
        current.append(p)
        size += p.numel()
        if size >= max_numel:
            groups.append(current)
            current, size = [], 0
    if current:
        groups.append(current)
    return groups


class SuperOffloadEngine:
    def __init__(self, model, config):
        self.model = model
        self.config = config
        params = [p for p in model.parameters() if p.requires_grad]
        self.sub_groups = [SubGroup(i, ps) for i, ps in enumerate(_partition(params, config.sub_group_numel))]
        self.optimizer = SuperOffloadOptimizer(self.sub_groups, config)
        for group in self.sub_groups:
            for p in group.params:
                p.register_post_accumulate_grad_hook(self._make_hook(group))

    def _make_hook(self, group):
        def hook(param):
            group.grad_slice(param).add_(param.grad.view_as(param).float())
            param.grad = None
            group.pending -= 1
            if group.pending == 0:
                self.optimizer.on_sub_group_ready(group)

        return hook

    def train_batch(self, batch):
        loss = self.model(**batch).loss
        loss.backward()
        self.optimizer.step()
        return loss.detach()
