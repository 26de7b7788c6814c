"""lmc_lite: a cut-down LMCache v1 engine for vLLM (chunked store into pinned memory
objects, a CPU hot cache and a local disk tier).

``store`` does not block the engine thread: the gather of a request's chunks out of the
paged KV cache is issued from a small thread pool, and when that job completes a done
callback hands the memory objects to the storage manager (hot cache + disk write)."""
