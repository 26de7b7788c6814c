import numpy as np

BLOCK_SIZE = 16
SWAP_WORKERS = 2
KV_DTYPE = np.float16
LEN_DTYPE = np.int32
THREADS = 128
