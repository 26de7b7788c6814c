from numba import cuda


@cuda.jit
def zero_counts(counts):
    i, j = cuda.grid(2)
    if i < counts.shape[0] and j < counts.shape[1]:
        counts[i, j] = 0


@cuda.jit
def tile_counts(frame, threshold, tile, counts):
    y, x = cuda.grid(2)
    if y < frame.shape[0] and x < frame.shape[1] and frame[y, x] > threshold:
        cuda.atomic.add(counts, (y // tile, x // tile), 1)
