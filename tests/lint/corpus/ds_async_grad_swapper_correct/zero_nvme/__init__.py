"""ZeRO-Infinity gradient swap-out, in the shape of DeepSpeed's AsyncTensorSwapper: fp32
gradient partitions are packed into aligned pinned swap buffers and written to NVMe with the
async I/O handle, one buffer while the next one fills."""
