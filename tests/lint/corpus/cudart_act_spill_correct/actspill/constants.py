cudaMemcpyHostToDevice = 1
cudaMemcpyDeviceToHost = 2
cudaStreamNonBlocking = 0x01
cudaEventDisableTiming = 0x02
cudaHostAllocDefault = 0x00

STAGING_CHUNKS = 4
STAGING_CHUNK_BYTES = 64 << 20
SPILL_SUFFIX = ".act"
