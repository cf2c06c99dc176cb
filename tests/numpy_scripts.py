"""Run the "Copy as NumPy" scripts the page offers as a reader would: in a Python of their
own, with numpy alone (the project, installed in this venv, cannot be imported), and
read what they print.

A reader pastes a script into a fresh interpreter, so every test runs it outside the test
process (``-I``: no PYTHONPATH, no user site, not the project on ``sys.path``; ``-W
error``: a warning the script raises fails it). Starting that interpreter and importing
numpy cost about 0.15 s of CPU, paid some sixty times in the fast loop, so one interpreter
per test process runs the scripts one after another, each in a namespace of its own (as
``python script.py`` would: ``__name__ == "__main__"``), with numpy's print options and
error handling set back to their defaults before each, and its warnings filters restored
after: nothing one script does can change what the next prints.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import Any

# The interpreter's side: one JSON line in (the script), one JSON line out (what it did).
_SERVE = r"""
import contextlib, io, json, os, sys, tempfile, traceback, warnings
import numpy as np


class NoProject:  # a reader has numpy, not this project (installed here, editable)

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "app" or name.startswith("app."):
            raise ImportError(f"a reader's Python has no {name!r}: a script must not need it")
        return None


sys.meta_path.insert(0, NoProject)
print_defaults = np.get_printoptions()
error_defaults = np.geterr()
protocol = sys.stdout
home = tempfile.mkdtemp(prefix="numpy-script-")
os.chdir(home)
for line in sys.stdin:
    code = json.loads(line)["code"]
    np.set_printoptions(**print_defaults)
    np.seterr(**error_defaults)
    out, err, returncode = io.StringIO(), io.StringIO(), 0
    with (warnings.catch_warnings(), contextlib.redirect_stdout(out),
          contextlib.redirect_stderr(err)):
        try:
            exec(compile(code, "<script>", "exec"), {"__name__": "__main__"})
        except SystemExit as stop:
            code_ = stop.code
            returncode = code_ if isinstance(code_, int) else (0 if code_ is None else 1)
        except BaseException:
            traceback.print_exc(file=err)
            returncode = 1
    protocol.write(json.dumps({"returncode": returncode, "stdout": out.getvalue(),
                               "stderr": err.getvalue()}) + "\n")
    protocol.flush()
"""


@dataclass(frozen=True)
class Done:
    """What a script did: its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str


class _Interpreter:
    """The one interpreter of this test process, started on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # tests' threads (30 clients) never share a script
        self._process: subprocess.Popen[str] | None = None

    def run(self, code: str) -> Done:
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._process = subprocess.Popen(
                    [sys.executable, "-I", "-W", "error", "-c", _SERVE],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            assert self._process.stdin is not None
            assert self._process.stdout is not None
            self._process.stdin.write(json.dumps({"code": code}) + "\n")
            self._process.stdin.flush()
            answer = self._process.stdout.readline()
            assert answer, "the script's interpreter died: it exited the process itself"
            return Done(**json.loads(answer))


_interpreter = _Interpreter()


def run_numpy_script(code: str) -> Done:
    """Run one script and return what it did, whatever its exit status."""
    return _interpreter.run(code)


def script_json(code: str) -> Any:
    """Run one script that must succeed and print one JSON document; return it."""
    done = run_numpy_script(code)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
