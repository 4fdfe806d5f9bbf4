"""Client selection and round deadlines in Python, called by edgetrain's engine on the simulated clock
(docs/how-to/python-policies.md).

A scenario names them: ``"training": {"selection": {"kind": "python", "python": "oort.py:OortLike",
"per_round": 20, "settings": {...}}}`` and ``"training": {"deadline": "python", "deadline_policy":
{"python": "deadline.py:Median", "settings": {...}}}``. What the devices did comes back in batches (one call a
round), so that a policy over a million devices costs one Python call per round, not one per device.
``self.rng`` is a seeded ``numpy.random.Generator`` (same seed, same results).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt


# What select returns: device indices, as a list or a numpy array.
Devices = Union[Sequence[int], npt.NDArray[Any]]


@dataclass(frozen=True)
class Report:
    """What became of a picked device's update: ``aggregated`` (in time) or only delivered (late), after
    ``round_time_s`` of simulated time; ``samples`` and ``loss`` for an aggregated one (0 otherwise)."""

    device: int
    round_time_s: float
    aggregated: bool
    samples: int
    loss: float


class SelectionPolicy:
    """Override ``select``; ``feedback`` receives, before each ``select``, what came back since the last."""

    rng: np.random.Generator  # set by the engine before any call

    def select(self, server_round: int, candidates: npt.NDArray[np.int64], num_clients: int) -> Devices:
        """``num_clients`` of ``candidates`` (device indices: those on, not busy, holding a batch), any order;
        every candidate when ``num_clients`` is at least their number."""
        raise NotImplementedError

    def feedback(self, server_round: int, reports: List[Report]) -> None:
        """The updates that came back (in time or late) since the last call."""


@dataclass(frozen=True)
class Observation:
    """A device's update came back ``round_time_s`` after its model was sent."""

    device: int
    round_time_s: float


class DeadlinePolicy:
    """Override ``deadline``; ``observed`` receives, before each ``deadline``, the round times seen since."""

    rng: np.random.Generator  # set by the engine before any call

    def deadline(self, server_round: int, picked: npt.NDArray[np.int64]) -> Optional[float]:
        """Seconds after the round's start at which it stops waiting; None: it waits for every update."""
        raise NotImplementedError

    def observed(self, observations: List[Observation]) -> None:
        """The round times seen since the last call."""
