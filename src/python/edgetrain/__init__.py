"""edgetrain from Python: the same engine as the ``edgetrain`` command, results as pandas DataFrames.

    import edgetrain
    run = edgetrain.run("scenarios/quickstart.json", set={"stop.rounds": 20})
    run.metrics.plot(x="sim_time_s", y="test_accuracy")

Functions: run, load, validate, resolve, sweep, fleet, compare, schema. Errors: InputError (a
ValueError whose message is the command line's one line), EngineError; Ctrl-C stops a run with its
results written and raises KeyboardInterrupt (its ``run`` attribute: the interrupted Run). Each run is
a child ``edgetrain run`` process, so two runs in one interpreter give exactly the command line's
results, and runs can go in parallel (sweep(..., jobs=N)).
docs/how-to/python.md has the whole guide; the package is typed (py.typed).
"""
from ._api import Fleet, Validation, compare, fleet, resolve, run, schema, sweep, validate
from ._engine import engine_path
from ._errors import EngineError, InputError
from ._results import Run, load

__all__ = ["run", "load", "validate", "resolve", "sweep", "fleet", "compare", "schema", "engine_path", "Run",
           "Validation", "Fleet", "InputError", "EngineError"]
__version__ = "0.1.0"

for _public in (Run, Validation, Fleet, InputError, EngineError):
    _public.__module__ = __name__  # edgetrain.InputError in tracebacks and help(), not edgetrain._errors
