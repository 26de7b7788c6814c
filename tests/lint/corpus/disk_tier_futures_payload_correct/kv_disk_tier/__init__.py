"""Disk tier for a fork of vLLM's SimpleCPUOffloadConnector: KV blocks go GPU -> pinned
staging slot -> file (pwritev) and back, double-buffered so the DMA of one block overlaps
the file I/O of the previous one. Each direction runs on its own single-thread executor so
loads never queue behind stores. (vLLM runs the model on a dedicated stream that it makes
current on the worker thread with torch.cuda.set_stream, not on the default stream.)"""
