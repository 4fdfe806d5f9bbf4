# Type hints of the edgetrain package (docs/how-to/python.md). The docstrings are in the modules.
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, Union

import pandas

PathLike = Union[str, "os.PathLike[str]"]
Scenario = Union[PathLike, Mapping[str, Any]]
Overrides = Union[Mapping[str, Any], Sequence[str], str, None]
ProgressRecord = dict[str, Any]

__version__: str
__all__: list[str]

class InputError(ValueError): ...
class EngineError(RuntimeError): ...

class Run:
    folder: Path
    output: str
    summary: dict[str, Any]
    scenario: dict[str, Any]
    metrics: pandas.DataFrame
    devices: pandas.DataFrame
    links: pandas.DataFrame
    rounds: pandas.DataFrame
    buffers: pandas.DataFrame
    staleness: pandas.DataFrame
    selections: pandas.DataFrame
    def __init__(self, folder: PathLike, output: str = ...) -> None: ...
    @property
    def status(self) -> str | None: ...
    def table(self, name: str) -> pandas.DataFrame: ...

@dataclass
class Validation:
    scenario: dict[str, Any]
    description: str
    warnings: list[str]

@dataclass
class Fleet:
    xml: str
    devices: pandas.DataFrame
    text: str
    path: Path | None

def run(
    scenario: Scenario,
    out: PathLike | None = ...,
    set: Overrides = ...,
    threads: int | None = ...,
    quiet: bool = ...,
    seed: int | None = ...,
    progress: bool | Callable[[ProgressRecord], Any] | None = ...,
) -> Run: ...
def load(folder: PathLike) -> Run: ...
def validate(scenario: Scenario, set: Overrides = ..., seed: int | None = ...) -> Validation: ...
def resolve(scenario: Scenario, set: Overrides = ..., seed: int | None = ...) -> dict[str, Any]: ...
def sweep(
    spec: PathLike | Mapping[str, Any],
    out: PathLike | None = ...,
    jobs: int = ...,
    threads: int | None = ...,
    quiet: bool = ...,
) -> pandas.DataFrame: ...
def fleet(description: PathLike | Mapping[str, Any], out: PathLike | None = ..., seed: int | None = ...) -> Fleet: ...
def compare(*runs: Run | PathLike) -> pandas.DataFrame: ...
def schema(markdown: bool = ...) -> pandas.DataFrame | str: ...
def engine_path() -> str: ...
