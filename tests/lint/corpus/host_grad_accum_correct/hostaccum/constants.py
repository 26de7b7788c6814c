import numpy as np
import torch

# cuMemcpyBatchAsync rejects very large batches on some drivers; split above this
MAX_COPIES_PER_BATCH = 1024

TORCH_TO_NUMPY_DTYPE = {
    torch.float32: np.float32,
    torch.float16: np.float16,
}
