"""Iteration over the distributed optimizer's per-parameter Adam state tensors."""


def iter_adam_states(optimizer):
    for group_idx, group in enumerate(optimizer.param_groups):
        for param_idx, param in enumerate(group["params"]):
            state = optimizer.state.get(param)
            if not state:
                continue
            for key in ("exp_avg", "exp_avg_sq"):
                if key in state:
                    yield f"g{group_idx}.p{param_idx}.{key}", state[key]
