def build_plans(requests, snapshot_indices=None):
    """One (key, rows) plan per request; rows come through the caller's snapshot hook if given."""
    plans = []
    for request in requests:
        rows = snapshot_indices(request.indices) if snapshot_indices is not None else request.indices.cpu()
        plans.append((request.key, rows))
    return plans
