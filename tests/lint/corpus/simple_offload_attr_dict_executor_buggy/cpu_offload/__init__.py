"""Worker side of a fork of vLLM's SimpleCPUOffloadConnector that drives its block copies from
a single-thread executor (submission order is copy order) with the CUDA runtime's
cudaMemcpyBatchAsync, through cuda-python's runtime bindings."""
