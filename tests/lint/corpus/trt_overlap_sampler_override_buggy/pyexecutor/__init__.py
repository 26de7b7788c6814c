"""The overlap executor loop and samplers of a pytorch-backend executor, in the shape of
TensorRT-LLM's ``_torch/pyexecutor``: ``sample_async`` queues the host copies of the sampled
tokens and records a ``sampler_event``; one iteration later, after the next forward has been
queued, ``update_requests`` waits on that event and hands the tokens to the requests. The
abstract ``Sampler`` implements ``update_requests`` as a template around ``_process_requests``;
the MTP (multi-token prediction) sampler extends it for accepted draft tokens."""
