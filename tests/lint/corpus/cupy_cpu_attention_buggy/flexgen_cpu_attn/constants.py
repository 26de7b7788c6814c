import numpy as np

HOST_DTYPE = np.float16
COMPUTE_DTYPE = np.float32
QKV = 3
KV = 2
WORKER_POLL_TIMEOUT_S = 0.5
