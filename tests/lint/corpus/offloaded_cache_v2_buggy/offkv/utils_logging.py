import logging
import os

_LEVEL = os.environ.get("OFFKV_LOG_LEVEL", "WARNING").upper()


def get_logger(name: str) -> logging.Logger:
    logger = logging.getLogger(name)
    if not logger.handlers:
        logger.setLevel(_LEVEL)
    return logger
