"""Flux from Python: load a program, call its intents, explain the results.

    import flux
    prog = flux.load("examples/fibonacci.flux", store="./.flux")
    prog.fibonacci(100)                    # 354224848179261915075, a Python int
    prog.call("find_primes", 30)           # [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
    prog.explain("fibonacci(100)")         # the provenance tree, a dict
    prog.history("fibonacci")              # the versions, with their proofs

A thin layer over the C library (libflux, include/flux.h) through ctypes,
the standard library's foreign function interface: nothing to build. Runs
are recorded in the store and learned from as runs of the `flux` command
are (a learner thread of the library runs the rounds). Values map both
ways: int of any size, bool, float, str, list, nested lists (matrices),
dict <-> record. Errors are FluxError, with the status, the message and
FILE:LINE:COL. Any number of threads may call one Program at once.
docs/python.md says more.
"""

import ctypes
import ctypes.util
import json
import math
import os
import re
import threading

__all__ = ["load", "Program", "FluxError", "version"]

OK, ERR_RUNTIME, ERR_USAGE, ERR_REJECTED, ERR_STORE, DIFFERENT = range(6)
_STATUS_NAMES = {ERR_RUNTIME: "runtime error", ERR_USAGE: "usage error",
                 ERR_REJECTED: "program rejected", ERR_STORE: "store error"}


class FluxError(Exception):
    """A call that failed: status is the flux exit status (1 a run-time error
    or a budget, 2 a malformed request, 3 a rejected program, 4 the store),
    message the first diagnostic, file/line/col its position when it has one,
    diagnostics every line the library wrote."""

    def __init__(self, status, diagnostics):
        self.status = status
        self.diagnostics = diagnostics
        first = next((l for l in diagnostics.splitlines() if l.strip()), "")
        m = re.match(r"^(.+?):(\d+):(\d+): (?:error|warning): (.*)$", first)
        if m:
            self.file, self.line, self.col = m.group(1), int(m.group(2)), int(m.group(3))
            self.message = m.group(4)
        else:
            self.file = self.line = self.col = None
            self.message = re.sub(r"^flux: ", "", first) or _STATUS_NAMES.get(status, "failed")
        super().__init__(first or self.message)


# ---- the library ----

def _library_path():
    """FLUX_LIBRARY, else the libflux.so of this source tree's build, else
    the one installed beside this package, else the system's."""
    if os.environ.get("FLUX_LIBRARY"):
        return os.environ["FLUX_LIBRARY"]
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "..", "..", "build", "libflux.so"),):
        if os.path.exists(candidate):
            return candidate
    try:
        from . import _installed  # written by `make install`
        return _installed.LIBRARY
    except ImportError:
        pass
    return ctypes.util.find_library("flux") or "libflux.so.0"


class _RunOptions(ctypes.Structure):
    _fields_ = [("max_steps", ctypes.c_ulonglong), ("max_depth", ctypes.c_ulonglong),
                ("max_memory_mb", ctypes.c_ulonglong), ("max_seconds", ctypes.c_double),
                ("want_json", ctypes.c_int), ("record_later", ctypes.c_int),
                ("no_learn", ctypes.c_int), ("version", ctypes.c_char_p),
                ("variant", ctypes.c_char_p), ("expr_name", ctypes.c_char_p),
                ("print_to", ctypes.c_void_p)]


class _Result(ctypes.Structure):
    _fields_ = [("execution_id", ctypes.c_longlong), ("text", ctypes.c_void_p),
                ("json", ctypes.c_void_p), ("duration_ms", ctypes.c_double),
                ("value_json", ctypes.c_void_p), ("intent", ctypes.c_void_p),
                ("version", ctypes.c_void_p), ("rewrites", ctypes.c_void_p),
                ("variants", ctypes.c_void_p), ("variant", ctypes.c_void_p)]


_lib = None
_libc = None
_lib_lock = threading.Lock()


def _load_library():
    global _lib, _libc
    with _lib_lock:
        if _lib is not None:
            return _lib
        lib = ctypes.CDLL(_library_path())
        p, c_int, c_char_p = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
        sigs = {
            "flux_program_load": (c_int, [c_char_p, p, p, ctypes.POINTER(p)]),
            "flux_program_free": (None, [p]),
            "flux_program_intent_count": (ctypes.c_size_t, [p]),
            "flux_program_intent_name": (c_char_p, [p, ctypes.c_size_t]),
            "flux_store_open": (c_int, [c_char_p, p, ctypes.POINTER(p)]),
            "flux_store_close": (c_int, [p, p]),
            "flux_store_flush": (c_int, [p, p]),
            "flux_program_use_store": (None, [p, p, c_int]),
            "flux_run": (c_int, [p, c_char_p, ctypes.POINTER(_RunOptions), p,
                                 ctypes.POINTER(_Result)]),
            "flux_result_free": (None, [ctypes.POINTER(_Result)]),
            "flux_explain": (c_int, [p, c_char_p, ctypes.POINTER(_RunOptions), c_int, p, p]),
            "flux_history": (c_int, [p, p, c_char_p, c_int, p, p]),
            "flux_learner_start": (c_int, [p, p, p, ctypes.POINTER(p)]),
            "flux_learner_request": (None, [p, ctypes.c_longlong]),
            "flux_learner_wait": (ctypes.c_uint, [p, ctypes.POINTER(ctypes.c_uint)]),
            "flux_learner_stop": (None, [p]),
            "flux_version": (c_char_p, []),
        }
        for name, (res, args) in sigs.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        libc = ctypes.CDLL(None)
        libc.open_memstream.restype = p
        libc.open_memstream.argtypes = [ctypes.POINTER(p), ctypes.POINTER(ctypes.c_size_t)]
        libc.fclose.argtypes = [p]
        libc.free.argtypes = [p]
        _libc, _lib = libc, lib
        return lib


class _Text:
    """A FILE* writing to memory (open_memstream); .close() returns the text."""

    def __init__(self):
        self._buf, self._len = ctypes.c_void_p(), ctypes.c_size_t()
        self.file = _libc.open_memstream(ctypes.byref(self._buf), ctypes.byref(self._len))
        if not self.file:
            raise MemoryError("open_memstream failed")

    def close(self):
        _libc.fclose(self.file)
        text = ctypes.string_at(self._buf, self._len.value).decode("utf-8", "replace")
        _libc.free(self._buf)
        return text


def version():
    """The library's version."""
    return _load_library().flux_version().decode()


# ---- values ----

def _literal(v, depth=0):
    """v as a Flux literal (docs/language.md, section 10)."""
    if depth > 1000:
        raise ValueError("a value nested more than 1000 levels")
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v) if v >= 0 else "(%d)" % v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError("Flux has no literal for %r" % v)
        text = repr(v)
        return "(%s)" % text if text.startswith("-") else text
    if isinstance(v, str):
        if "\x00" in v:  # the library takes an expression as a C string
            raise ValueError("a Flux string cannot hold the character U+0000")
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") \
                      .replace("\t", "\\t") + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_literal(x, depth + 1) for x in v) + "]"
    if isinstance(v, dict):
        for k in v:
            if not isinstance(k, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k):
                raise ValueError("a record's field names are identifiers, not %r" % (k,))
        return "{" + ", ".join("%s: %s" % (k, _literal(x, depth + 1)) for k, x in v.items()) + "}"
    raise TypeError("Flux takes int, bool, float, str, list and dict values, not %s"
                    % type(v).__name__)


def _value(text):
    """A value from the library's JSON: integers of any size exact, records
    as dicts, lists (and a matrix's rows) as lists."""
    return json.loads(text)


# ---- programs ----

class _Turns:
    """Runs share a program; explain and history want it to themselves
    (include/flux.h, "Threads"): a readers-writer lock."""

    def __init__(self):
        self._cond = threading.Condition()
        self._runs = 0
        self._alone = False

    def shared(self):
        return _Held(self, False)

    def alone(self):
        return _Held(self, True)


class _Held:
    def __init__(self, turns, alone):
        self.turns, self.alone = turns, alone

    def __enter__(self):
        t = self.turns
        with t._cond:
            if self.alone:
                t._cond.wait_for(lambda: not t._alone and t._runs == 0)
                t._alone = True
            else:
                t._cond.wait_for(lambda: not t._alone)
                t._runs += 1

    def __exit__(self, *exc):
        t = self.turns
        with t._cond:
            if self.alone:
                t._alone = False
            else:
                t._runs -= 1
            t._cond.notify_all()

class Program:
    """A loaded program; its intents are methods (prog.fibonacci(10)).
    Close it (or use `with`) to flush its runs and stop its learner."""

    def __init__(self, path, store=None, keep_values=False, learn=True):
        lib = _load_library()
        self._lib = lib
        self.path = path
        self._prog = ctypes.c_void_p()
        self._store = ctypes.c_void_p()
        self._learner = ctypes.c_void_p()
        self._turns = _Turns()
        diag = _Text()
        status = lib.flux_program_load(os.fsencode(path), None, diag.file,
                                       ctypes.byref(self._prog))
        text = diag.close()
        if status != OK:
            raise FluxError(status, text)
        n = lib.flux_program_intent_count(self._prog)
        self.intents = [lib.flux_program_intent_name(self._prog, i).decode() for i in range(n)]
        if store is not None:
            diag = _Text()
            status = lib.flux_store_open(os.fsencode(store), diag.file, ctypes.byref(self._store))
            text = diag.close()
            if status != OK:
                lib.flux_program_free(self._prog)
                raise FluxError(status, text)
            lib.flux_program_use_store(self._prog, self._store, 1 if keep_values else 0)
            if learn and os.environ.get("FLUX_LEARN") != "off":
                diag = _Text()
                status = lib.flux_learner_start(self._prog, self._store, diag.file,
                                                ctypes.byref(self._learner))
                diag.close()
                if status != OK:
                    self._learner = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def close(self):
        """Flushes the runs to the store, waits for the learning asked for,
        and frees the program."""
        lib = self._lib
        if self._learner:
            lib.flux_learner_stop(self._learner)
            self._learner = ctypes.c_void_p()
        if self._store:
            lib.flux_store_close(self._store, None)
            self._store = ctypes.c_void_p()
        if self._prog:
            lib.flux_program_free(self._prog)
            self._prog = ctypes.c_void_p()

    def _alive(self):
        if not self._prog:
            raise ValueError("the program is closed")

    def __getattr__(self, name):
        if name.startswith("_") or name not in self.__dict__.get("intents", ()):
            raise AttributeError(name)
        return lambda *args: self.call(name, *args)

    def __dir__(self):
        return list(super().__dir__()) + self.intents

    @staticmethod
    def _options(**kw):
        o = _RunOptions()
        for k, v in kw.items():
            setattr(o, k, v)
        return o

    def run(self, expr, max_seconds=0.0, max_steps=0, max_memory_mb=0):
        """Evaluates EXPR (`fibonacci(100)`, `len(find_primes(1000))`) and
        returns its value; the run is recorded when the program has a store."""
        self._alive()
        opts = self._options(want_json=1, max_seconds=max_seconds, max_steps=max_steps,
                             max_memory_mb=max_memory_mb, expr_name=b"<python>")
        res = _Result()
        diag = _Text()
        with self._turns.shared():
            status = self._lib.flux_run(self._prog, expr.encode(), ctypes.byref(opts), diag.file,
                                        ctypes.byref(res))
        text = diag.close()
        if status != OK:
            raise FluxError(status, text)
        try:
            value = _value(ctypes.string_at(res.value_json).decode())
            execution = res.execution_id
        finally:
            self._lib.flux_result_free(ctypes.byref(res))
        if self._store:
            self._lib.flux_store_flush(self._store, None)  # the runs take turns on it
            if self._learner:
                self._lib.flux_learner_request(self._learner, execution)
        return value

    def call(self, intent, *args):
        """intent(*args), the arguments given as Python values."""
        return self.run("%s(%s)" % (intent, ", ".join(_literal(a) for a in args)))

    def explain(self, expr):
        """The provenance tree of EXPR's value (`flux explain --json`), a dict."""
        self._alive()
        out, diag = _Text(), _Text()
        with self._turns.alone():
            status = self._lib.flux_explain(self._prog, expr.encode(), None, 1, out.file,
                                            diag.file)
        text, why = out.close(), diag.close()
        if status != OK:
            raise FluxError(status, why)
        return json.loads(text)

    def history(self, intent=None):
        """Every version of the intent's lineage (or of every intent), oldest
        first, with its rewrite, proof and evidence: a list of dicts."""
        self._alive()
        if not self._store:
            raise ValueError("history needs a store: flux.load(path, store=DIR)")
        out, diag = _Text(), _Text()
        with self._turns.alone():
            status = self._lib.flux_history(self._store, self._prog,
                                            intent.encode() if intent else None, 1, out.file,
                                            diag.file)
        text, why = out.close(), diag.close()
        if status != OK:
            raise FluxError(status, why)
        return [json.loads(l) for l in text.splitlines() if l.strip()]

    def learn(self):
        """Waits for the learning rounds asked for so far; their number."""
        if not self._learner:
            return 0
        return self._lib.flux_learner_wait(self._learner, None)


def load(path, store=None, keep_values=False, learn=True):
    """Loads the program at path (checked as `flux check` does: a rejected
    program raises FluxError with its first error's position). With
    store=DIR its runs are recorded there and learned from."""
    return Program(path, store=store, keep_values=keep_values, learn=learn)
