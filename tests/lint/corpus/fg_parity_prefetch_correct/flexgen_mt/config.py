NUM_BUFFERS = 2          # layer j computes out of slot j % NUM_BUFFERS
WEIGHT_LOADER_STREAMS = 1
CACHE_LOADER_STREAMS = 2
DEVICE = "cuda:0"
