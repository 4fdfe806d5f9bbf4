"""An Oort-like selection (Lai et al., OSDI 2021) in Python: each device's statistical utility (its samples
times the root mean square of its loss) discounted when its round takes longer than the preferred duration,
the best (1 - exploration) of each round's picks by utility and the rest explored at random among devices
never picked. What came back of each round arrives in one ``feedback`` call."""
from __future__ import annotations

from typing import Dict, List

import numpy as np
import numpy.typing as npt

from edgetrain.policies import Devices, Report, SelectionPolicy


class OortLike(SelectionPolicy):
    def __init__(self, exploration: float = 0.1, alpha: float = 2.0, preferred_round_s: float = 0.0) -> None:
        self.exploration, self.alpha, self.preferred_round_s = exploration, alpha, preferred_round_s
        self.utility: Dict[int, float] = {}
        self.round_time: Dict[int, float] = {}

    def feedback(self, server_round: int, reports: List[Report]) -> None:
        for r in reports:
            self.round_time[r.device] = r.round_time_s
            if r.aggregated:
                self.utility[r.device] = r.samples * abs(r.loss)

    def select(self, server_round: int, candidates: npt.NDArray[np.int64], num_clients: int) -> Devices:
        if num_clients >= len(candidates):
            return candidates
        known = [int(d) for d in candidates if int(d) in self.utility]
        fresh = np.array([d for d in candidates if int(d) not in self.utility], dtype=np.int64)
        explore = min(len(fresh), max(int(round(self.exploration * num_clients)), num_clients - len(known)))
        seen = list(self.round_time.values())
        preferred = self.preferred_round_s or (float(np.median(seen)) if seen else 1.0)

        def score(d: int) -> float:
            t = self.round_time.get(d, preferred)
            return float(self.utility[d] * (min(1.0, preferred / t) ** self.alpha if t > 0 else 1.0))

        exploit = sorted(known, key=lambda d: (-score(d), d))[: num_clients - explore]
        explored = self.rng.choice(fresh, size=explore, replace=False) if explore else np.array([], dtype=np.int64)
        return [*exploit, *(int(d) for d in explored)]
