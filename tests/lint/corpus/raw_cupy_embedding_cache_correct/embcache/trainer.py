"""Training loop that swaps one cold range of the cache every few steps."""


def train(cache, batches, lr, swap_every, swap_plan):
    for step, (slots, grads) in enumerate(batches):
        cache.train_step(slots, grads, lr)
        if step % swap_every == swap_every - 1 and swap_plan:
            start, stop, new_ids, old_ids = swap_plan.pop(0)
            cache.swap_range(start, stop, new_ids, old_ids)
