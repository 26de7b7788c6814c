# Copyright 2025 The HuggingFace Team. All rights reserved.
import logging as _logging


class logging:  # noqa: N801 - mirrors transformers.utils.logging
    @staticmethod
    def get_logger(name: str) -> _logging.Logger:
        return _logging.getLogger(name)
