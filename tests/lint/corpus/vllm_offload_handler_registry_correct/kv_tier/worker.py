class TransferWorker:
    """Routes each transfer job to the handler registered for its pair of mediums."""

    def __init__(self):
        self.by_mediums = {}

    def register_handler(self, src_cls, dst_cls, handler) -> None:
        mediums = (src_cls.medium(), dst_cls.medium())
        assert mediums not in self.by_mediums
        self.by_mediums[mediums] = handler

    def transfer_async(self, job_id: int, spec) -> bool:
        src, dst = spec
        handler = self.by_mediums.get((src.medium(), dst.medium()))
        assert handler is not None
        return handler.transfer_async(job_id, spec)

    def get_finished(self) -> list[int]:
        return [job for handler in self.by_mediums.values() for job in handler.get_finished()]
