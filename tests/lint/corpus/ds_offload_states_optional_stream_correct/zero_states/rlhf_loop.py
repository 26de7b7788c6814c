from .optimizer import ZeroStage1Adam


def train_then_generate(optimizer: ZeroStage1Adam, grad_partitions, generate, prompts):
    optimizer.step(grad_partitions)
    optimizer.offload_states(non_blocking=True)
    samples = generate(prompts)
    optimizer.reload_states(non_blocking=True)
    return samples
