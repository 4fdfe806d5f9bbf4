"""A round deadline in Python: a margin over the median of the picked devices' last round times (none until
one is known), so a round stops waiting for the slowest half once it is late."""
from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np
import numpy.typing as npt

from edgetrain.policies import DeadlinePolicy, Observation


class MedianDeadline(DeadlinePolicy):
    def __init__(self, margin: float = 1.5) -> None:
        self.margin = margin
        self.last: Dict[int, float] = {}

    def observed(self, observations: List[Observation]) -> None:
        for o in observations:
            self.last[o.device] = o.round_time_s

    def deadline(self, server_round: int, picked: npt.NDArray[np.int64]) -> Optional[float]:
        times = [self.last[int(d)] for d in picked if int(d) in self.last]
        return self.margin * float(np.median(times)) if times else None
