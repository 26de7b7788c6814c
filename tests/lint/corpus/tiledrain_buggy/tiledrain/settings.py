import numpy as np

THREADS_PER_BLOCK = 128
MOMENTS = 4
TILES_PER_BATCH = 2048
QUEUE_DEPTH = 4
OUT_DTYPE = np.float64
OUT_PATTERN = "moments_{seq:06d}.npy"
