"""KV cache reuse with a secondary (pinned host) block pool, in the shape of TensorRT-LLM's
pytorch-backend resource managers. When a request finishes, its primary (device) blocks are
offloaded to the secondary pool so a later request with the same prefix can onboard them;
the copies run on a transfer thread of their own so the executor loop never blocks on them."""
