from .attach import cpu_offload_with_stream, train_step

__all__ = ["cpu_offload_with_stream", "train_step"]
