import numpy as np

TABLE_ROWS = 256
BIAS_DTYPE = np.float32
THREADS_PER_BLOCK_2D = (1, 256)
THREADS_PER_BLOCK_1D = 128
# A refresh touching at least this fraction of rows re-uploads the whole table.
FULL_REFRESH_FRACTION = 0.25
NO_BIAS_ROW = -1
