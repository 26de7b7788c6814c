"""Primary/secondary KV block pools in the shape of TensorRT-LLM's KV cache manager: blocks of
requests that are not scheduled are offloaded to pinned host memory when the primary pool runs
out, and onboarded back before a forward that needs them. Streams travel as raw handles."""
