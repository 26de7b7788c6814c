"""Request handlers: price a book, report the kernel time."""
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List

from .book import OptionBook
from .engine import PricingEngine

logger = logging.getLogger(__name__)


class PricingService:
    def __init__(self, engine: PricingEngine, workers: int = 8):
        self.engine = engine
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="price")
        self.kernel_ms: List[float] = []

    def price(self, options: List[dict]) -> Dict[str, object]:
        ticket = self.engine.submit(OptionBook.from_request(options))
        prices = ticket.result()
        ms = ticket.kernel_ms()
        self.kernel_ms.append(ms)
        logger.debug("priced %d options, kernel %.3f ms", len(prices), ms)
        return {"prices": prices, "kernel_ms": ms}

    def price_many(self, requests: List[List[dict]]) -> List[Dict[str, object]]:
        return list(self.pool.map(self.price, requests))
