"""Async scheduling in the shape of vLLM v1's GPU model runner: with async scheduling on,
``execute_model`` returns at once with an ``AsyncGPUModelRunnerOutput`` that has started copying
the sampled token ids to the host on a dedicated output-copy stream; the engine core resolves it
(``get_output``) on its output thread while the next step is already being scheduled.

Bug: the output object takes ``torch.cuda.current_stream()`` inside the
``torch.cuda.stream(copy_stream)`` block, where the current stream is the copy stream itself, so
its ``wait_stream`` orders nothing and the copy may read the sampled ids before the sampler
wrote them (KVG001).
"""
