"""The test log's word on the database cache as the warm-up goes: when each instance's cache is warm, and how warm
it was when measuring began."""

from __future__ import annotations

from typing import Any

from engine.model.sizing import PAGE_SIZE_BYTES
from engine.model.units import format_bytes
from engine.workload.cache import WARM_SHARE
from engine.workload.instance import Instance


class CacheWarmth:
    """Tells the test log when each instance's cache is warm, and how warm it was when measuring began."""

    def __init__(self, instances: list[Instance], warmup_intervals: int, interval_s: float, log: Any) -> None:
        self.instances = instances
        self.warmup_intervals = warmup_intervals
        self.interval_s = interval_s
        self.log = log
        self.warm: set[str] = set()

    def report(self, intervals_done: int) -> None:
        seconds = intervals_done * self.interval_s
        for instance in self.instances:
            target = instance.cache_target_pages
            share = min(1.0, instance.cache.resident_pages / target)
            held = format_bytes(instance.cache.resident_pages * PAGE_SIZE_BYTES)
            if instance.name not in self.warm and share >= WARM_SHARE:
                self.warm.add(instance.name)
                self.log(f"{instance.name}: database cache {share:.0%} full ({held}) after {seconds:g} s")
            if intervals_done == self.warmup_intervals and share < WARM_SHARE:
                self.log(f"{instance.name}: database cache only {share:.0%} full ({held} of "
                         f"{format_bytes(target * PAGE_SIZE_BYTES)}) when measurement began; "
                         "a longer warm-up gives a steadier start", "warning")
