"""Retry decorator for calls to the payment provider from the billing side."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def retry_with_backoff(attempts: int = 3, base_delay: float = 0.2) -> Callable[[Callable[..., T]], Callable[..., T]]:
    def decorate(func: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(func)
        def wrapper(*args: object, **kwargs: object) -> T:
            for attempt in range(1, attempts + 1):
                try:
                    return func(*args, **kwargs)
                except ConnectionError:
                    if attempt == attempts:
                        raise
                    time.sleep(base_delay * 2 ** (attempt - 1))
            raise AssertionError("unreachable")

        return wrapper

    return decorate
