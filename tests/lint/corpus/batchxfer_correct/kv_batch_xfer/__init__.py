from kv_batch_xfer.offloader import BatchedPageOffloader, TransferConfig

__all__ = ["BatchedPageOffloader", "TransferConfig"]
