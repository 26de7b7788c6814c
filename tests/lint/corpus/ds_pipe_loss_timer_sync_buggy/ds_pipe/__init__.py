"""The last stage of a pipeline-parallel engine in the shape of DeepSpeed's
``runtime/pipe/engine.py``: a schedule of instructions dispatched through an instruction map,
per-micro-batch losses copied to a pinned host vector without a sync per micro-batch, and the
batch loss aggregated on the host at the end of ``train_batch``."""
