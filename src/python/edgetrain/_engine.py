"""Running the edgetrain engine in a child process.

SimGrid 3.32 keeps global state across engines in one process, and the command line pins its
kernels before anything else, so every run (and every sweep) is a child ``edgetrain`` process: the
one of this build (``build/edgetrain`` beside ``build/python``) or the installed one
(``PREFIX/bin/edgetrain`` for ``PREFIX/lib/python3*/dist-packages``), else the first on the PATH (a
package installed with pip into a virtual environment). ``EDGETRAIN_ENGINE`` names another. The child
gets its own session, so a terminal's Ctrl-C reaches Python alone, which passes one SIGINT on: the run
ends with its results written, as the command line's does. If Python dies (a notebook kernel
restarted), the child gets SIGTERM (EDGETRAIN_PARENT) and ends the same way.
"""
from __future__ import annotations

import codecs
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO, Any, Callable, Sequence, TextIO

from ._errors import EngineError, InputError

_HERE = Path(__file__).resolve().parent


def engine_path() -> str:
    """The edgetrain executable the package runs."""
    named = os.environ.get("EDGETRAIN_ENGINE")
    candidates = [Path(named)] if named else [_HERE.parent.parent / "edgetrain", _HERE.parents[3] / "bin" / "edgetrain"]
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    on_path = None if named else shutil.which("edgetrain")
    if on_path:
        return on_path
    raise EngineError("cannot find the edgetrain executable (looked at " + ", ".join(map(str, candidates)) +
                      ("" if named else " and on the PATH") + "; set EDGETRAIN_ENGINE to its path)")


_PREFIX = re.compile(r"^edgetrain(?: [a-z-]+)?: ")


def error_line(stderr: str) -> str:
    """The command line's one line for bad input: its first message that is not a warning."""
    for line in stderr.splitlines():
        if _PREFIX.match(line) and not line.startswith("edgetrain: warning: "):
            return _PREFIX.sub("", line, count=1)
    return stderr.strip() or "refused (no message)"


def results_folder(stdout: str) -> str | None:
    """The folder a run wrote, as the last line of its summary names it ("results: FOLDER"), or None
    when it wrote none (a signal before the simulation started)."""
    for line in reversed(stdout.splitlines()):
        if line.startswith("results: "):
            return line[len("results: "):]
    return None


class Completed:
    """What a child process did: its exit status, output, and whether Python interrupted it."""

    def __init__(self, status: int, stdout: str, stderr: str, interrupted: bool) -> None:
        self.status, self.stdout, self.stderr, self.interrupted = status, stdout, stderr, interrupted

    def check(self) -> Completed:
        """Raises InputError for exit status 2, EngineError for 1; returns self otherwise."""
        if self.status == 2:
            raise InputError(error_line(self.stderr))
        if self.status not in (0, 3, 130):
            raise EngineError("edgetrain failed (exit status %d): %s" % (self.status, self.stderr.strip()))
        return self


def execute(args: Sequence[str], stdin_text: str | None = None, progress: Callable[[dict[str, Any]], Any] | None = None,
            echo: bool = False) -> Completed:
    """Runs ``edgetrain ARGS`` to its end and returns a Completed.

    ``stdin_text`` goes to its standard input. ``progress`` (a callable) gets each progress record
    (a dict, see --progress-fd). ``echo`` copies its output to sys.stdout and sys.stderr as it comes.
    A KeyboardInterrupt while it runs sends it SIGINT (once per interrupt) and waits for it to write
    its results; the Completed then says ``interrupted``."""
    words = [engine_path()] + list(args)
    read_end = write_end = None
    if progress is not None:
        read_end, write_end = os.pipe()
        words += ["--progress-fd", str(write_end)]
    env = dict(os.environ, EDGETRAIN_PARENT=str(os.getpid()))  # the child ends if this process dies
    proc = subprocess.Popen(words, env=env, stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            pass_fds=(write_end,) if write_end is not None else (), start_new_session=True)
    if write_end is not None:
        os.close(write_end)  # the child holds it: end of file when the child ends
    streams = _Streams(proc, stdin_text, read_end, progress, echo)
    interrupted = False
    while True:
        try:
            streams.drain()
            break
        except KeyboardInterrupt:
            interrupted = True
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)  # a second one ends the child at once, as on a terminal
        except BaseException:  # the progress callback failed: the run ends (results written), then the error
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            proc.communicate()
            raise
    status = proc.wait()
    return Completed(status, streams.text("stdout"), streams.text("stderr"), interrupted)


class _Streams:
    """The child's pipes, read (and its input written) without blocking until all are closed."""

    def __init__(self, proc: subprocess.Popen[bytes], stdin_text: str | None, progress_fd: int | None,
                 progress: Callable[[dict[str, Any]], Any] | None, echo: bool) -> None:
        self.selector = selectors.DefaultSelector()
        self.chunks: dict[str, list[bytes]] = {"stdout": [], "stderr": []}
        # Echoed as it comes: a character split between two reads is written whole with the second.
        self.decoders = {name: codecs.getincrementaldecoder("utf-8")(errors="replace") for name in self.chunks}
        self.progress, self.echo, self.pending = progress, echo, b""
        self.unsent = memoryview((stdin_text or "").encode())  # what is left to write to its standard input
        # Each pipe with what to do when it is ready.
        assert proc.stdout is not None and proc.stderr is not None  # execute's Popen(stdout=PIPE, stderr=PIPE)
        self.selector.register(proc.stdout, selectors.EVENT_READ, lambda pipe: self._read(pipe, "stdout", sys.stdout))
        self.selector.register(proc.stderr, selectors.EVENT_READ, lambda pipe: self._read(pipe, "stderr", sys.stderr))
        if progress_fd is not None:
            self.selector.register(progress_fd, selectors.EVENT_READ, self._progress)
        if stdin_text is not None and proc.stdin is not None:
            os.set_blocking(proc.stdin.fileno(), False)
            self.selector.register(proc.stdin, selectors.EVENT_WRITE, self._stdin)

    def drain(self) -> None:
        # Woken at least every 0.2 s: in a process with other threads (a notebook kernel) a signal may be
        # taken by one of them, and Python raises Ctrl-C's KeyboardInterrupt in this one only once it
        # runs Python code again, which a wait on quiet pipes would put off.
        while self.selector.get_map():
            for key, _ in self.selector.select(timeout=0.2):
                key.data(key.fileobj)

    def _close(self, fileobj: int | IO[bytes]) -> None:
        self.selector.unregister(fileobj)
        if isinstance(fileobj, int):
            os.close(fileobj)
        else:
            fileobj.close()

    def _stdin(self, pipe: IO[bytes]) -> None:
        try:
            sent = os.write(pipe.fileno(), self.unsent[:65536])
        except BrokenPipeError:  # the child stopped reading (it refused its arguments first)
            sent = len(self.unsent)
        self.unsent = self.unsent[sent:]
        if not self.unsent:
            self._close(pipe)

    def _read(self, pipe: IO[bytes], name: str, sink: TextIO) -> None:
        data = os.read(pipe.fileno(), 65536)
        if not data:
            self._close(pipe)
            return
        self.chunks[name].append(data)
        if self.echo:
            sink.write(self.decoders[name].decode(data))
            sink.flush()

    def _progress(self, fd: int) -> None:
        data = os.read(fd, 65536)
        if not data:
            self._close(fd)
            return
        *lines, self.pending = (self.pending + data).split(b"\n")
        for line in lines:
            if self.progress is not None:
                self.progress(json.loads(line))

    def text(self, name: str) -> str:
        return b"".join(self.chunks[name]).decode(errors="replace")
