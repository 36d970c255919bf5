"""Bounded bookkeeping for the server: rate limits and a latency histogram of fixed size."""

from __future__ import annotations

import math
import time
from collections import OrderedDict


class Bucket:
    """A token bucket: ``rate`` tokens a second, at most ``burst`` saved up."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class RateLimiter:
    """Per-key token buckets (a key is a client address), remembering at most ``keys`` keys:
    the least recently seen are forgotten first, so the table cannot grow without bound."""

    def __init__(
        self, per_minute: float, keys: int = 10_000, *, burst: float | None = None
    ) -> None:
        self.per_minute = per_minute
        self.burst = per_minute if burst is None else burst
        """Tokens saved up at most (default: a minute's worth)."""
        self.keys = keys
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()

    def allow(self, key: str) -> bool:
        bucket = self._buckets.pop(key, None)
        if bucket is None:
            bucket = Bucket(self.per_minute / 60, self.burst)
            if len(self._buckets) >= self.keys:
                self._buckets.popitem(last=False)
        self._buckets[key] = bucket
        return bucket.take()


class Histogram:
    """Latencies in logarithmic buckets (10 a decade, 1 µs to 100 s): constant memory and
    constant time to add or summarise, whatever the number of samples."""

    PER_DECADE = 10
    LOW = 1e-6
    BUCKETS = 8 * PER_DECADE + 1

    def __init__(self) -> None:
        self.counts = [0] * self.BUCKETS
        self.total = 0
        self.largest = 0.0

    def add(self, seconds: float) -> None:
        index = 0
        if seconds > self.LOW:
            index = min(self.BUCKETS - 1, int(math.log10(seconds / self.LOW) * self.PER_DECADE))
        self.counts[index] += 1
        self.total += 1
        self.largest = max(self.largest, seconds)

    def quantile(self, q: float) -> float:
        """An upper bound of the ``q`` quantile (the top of its bucket), in seconds."""
        wanted = q * self.total
        seen = 0
        for index, count in enumerate(self.counts):
            seen += count
            if seen >= wanted and count:
                return min(self.largest, self.LOW * 10 ** ((index + 1) / self.PER_DECADE))
        return self.largest

    def summary(self, count: str = "actions", prefix: str = "") -> dict[str, float | int]:
        """The count (named ``count``) and, if any, p50, p99 and the largest in ms (each
        name after ``prefix``)."""
        if not self.total:
            return {count: 0}
        return {
            count: self.total,
            f"{prefix}p50_ms": round(self.quantile(0.50) * 1000, 3),
            f"{prefix}p99_ms": round(self.quantile(0.99) * 1000, 3),
            f"{prefix}max_ms": round(self.largest * 1000, 3),
        }
