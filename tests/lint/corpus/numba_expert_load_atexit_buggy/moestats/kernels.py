from numba import cuda


@cuda.jit
def expert_bincount(expert_ids, counts):
    i = cuda.grid(1)
    if i < expert_ids.shape[0]:
        cuda.atomic.add(counts, expert_ids[i], 1)


def launch_bincount(expert_ids, counts, stream, threads: int = 256) -> None:
    n = expert_ids.shape[0]
    if n == 0:
        return
    blocks = (n + threads - 1) // threads
    expert_bincount[blocks, threads, stream](expert_ids, counts)
