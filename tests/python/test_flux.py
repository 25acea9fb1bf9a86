"""tests/python/test_flux.py: the Python binding (python/flux, docs/python.md)
under `python3 -m unittest`, run by `make test` (tests/run-tests.sh, suite
"python"). FLUX_LIBRARY names the libflux.so to test (the build's by
default); FLUX the flux binary, for the store's point of view."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
import flux  # noqa: E402

ROUNDTRIP = os.path.join(HERE, "roundtrip.flux")
FIB = os.path.join(ROOT, "examples", "fibonacci.flux")
PRIMES = os.path.join(ROOT, "examples", "primes.flux")


class Values(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.p = flux.load(ROUNDTRIP)

    @classmethod
    def tearDownClass(cls):
        cls.p.close()

    def test_integers_of_any_size(self):
        for v in [0, 1, -5, 2**63, -(2**63) - 1, 2**200, -(3**150), 10**1000]:
            got = self.p.same_int(v)
            self.assertEqual(got, v)
            self.assertIs(type(got), int)
        self.assertEqual(self.p.square(2**100), 2**200)

    def test_bools_floats_strings(self):
        self.assertIs(self.p.same_bool(True), True)
        self.assertIs(self.p.same_bool(False), False)
        for x in [0.0, 1.5, -0.1, 1e300, 1e-06, 0.30000000000000004, -2.5e-300]:
            self.assertEqual(self.p.same_float(x), x)
        for s in ["", "plain", 'a"b\\c', "line\nbreak\ttab", "héllo ∀ 日本"]:
            self.assertEqual(self.p.same_text(s), s)

    def test_nested_lists_and_matrices(self):
        self.assertEqual(self.p.same_lists([[1, 2], [3], [], [2**70]]), [[1, 2], [3], [], [2**70]])
        self.assertEqual(self.p.same_matrix([[1, 2], [3, 4]]), [[1, 2], [3, 4]])
        self.assertEqual(self.p.same_matrix(((5, 6, 7),)), [[5, 6, 7]])

    def test_records_are_dicts(self):
        self.assertEqual(self.p.older({"name": "Ann", "age": 31}), {"name": "Ann", "age": 32})
        people = [{"name": "A", "age": 3}, {"age": 40, "name": "B"}]
        self.assertEqual(self.p.people_over(people, 18), [{"name": "B", "age": 40}])

    def test_call_and_run(self):
        self.assertEqual(self.p.call("square", -7), 49)
        self.assertEqual(self.p.run("square(3) + same_int(1)"), 10)
        self.assertIn("square", dir(self.p))

    def test_values_flux_cannot_take(self):
        with self.assertRaises(ValueError):
            self.p.same_float(float("inf"))
        with self.assertRaises(ValueError):
            self.p.same_text("nul \x00 inside")
        with self.assertRaises(ValueError):  # a lone surrogate is no UTF-8
            self.p.same_text("\ud800")
        with self.assertRaises(TypeError):
            self.p.same_int(object())
        with self.assertRaises(ValueError):
            self.p.older({"not a name": 1})
        with self.assertRaises(AttributeError):
            self.p.no_such_intent


class Errors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_a_rejected_program_has_its_position(self):
        path = os.path.join(self.tmp, "bad.flux")
        with open(path, "w") as f:
            f.write("intent f(n: Int) -> Int:\n    constraints:\n        - result = n +\n")
        with self.assertRaises(flux.FluxError) as c:
            flux.load(path)
        e = c.exception
        self.assertEqual(e.status, 3)
        self.assertEqual((e.file, e.line), (path, 3))
        self.assertGreater(e.col, 1)
        self.assertTrue(e.message)

    def test_a_malformed_expression_and_a_runtime_error(self):
        p = flux.load(ROUNDTRIP)
        with self.assertRaises(flux.FluxError) as c:
            p.run("square(")
        self.assertEqual((c.exception.status, c.exception.file, c.exception.line), (2, "<python>", 1))
        self.assertEqual(c.exception.col, 8)
        with self.assertRaises(flux.FluxError) as c:
            p.run("square(1) div 0")
        self.assertEqual(c.exception.status, 1)
        self.assertIn("division by zero", c.exception.message)
        with self.assertRaises(flux.FluxError) as c:
            p.run("same_text(1)")
        self.assertEqual(c.exception.status, 2)
        p.close()
        with self.assertRaises(ValueError):
            p.square(2)

    def test_a_budget(self):
        with flux.load(FIB) as p:
            with self.assertRaises(flux.FluxError) as c:
                p.run("fibonacci(60)", max_steps=1000)
            self.assertEqual(c.exception.status, 1)
            self.assertIn("step budget", c.exception.message)

    def test_a_missing_file(self):
        with self.assertRaises(flux.FluxError) as c:
            flux.load(os.path.join(self.tmp, "none.flux"))
        self.assertEqual(c.exception.status, 2)


class Store(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.store = os.path.join(self.tmp, "store")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def executions(self):
        db = sqlite3.connect(os.path.join(self.store, "flux.db"))
        try:
            return db.execute("SELECT count(*) FROM executions").fetchone()[0]
        finally:
            db.close()

    def test_four_threads_500_calls_each_nothing_lost(self):
        p = flux.load(ROUNDTRIP, store=self.store, learn=False)
        errors = []

        def work(k):
            try:
                for i in range(500):
                    n = k * 1000 + i
                    if p.square(n) != n * n:
                        errors.append((k, i))
            except Exception as e:  # noqa: BLE001 (reported below)
                errors.append(e)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        p.close()
        self.assertEqual(errors, [])
        self.assertEqual(self.executions(), 2000)
        db = sqlite3.connect(os.path.join(self.store, "flux.db"))
        inputs = {json.loads(r[0])["n"] for r in db.execute("SELECT input FROM executions")}
        db.close()
        self.assertEqual(inputs, {k * 1000 + i for k in range(4) for i in range(500)})

    def test_runs_are_recorded_and_learned_from(self):
        p = flux.load(FIB, store=self.store)
        for n in [10, 15, 20, 25]:
            self.assertEqual(p.fibonacci(n), [55, 610, 6765, 75025][[10, 15, 20, 25].index(n)])
        p.learn()  # the learner's rounds, asked for after each run
        history = p.history("fibonacci")
        self.assertGreaterEqual(len(history), 2, history)
        self.assertEqual(history[0]["version"], "v1")
        self.assertTrue(history[1]["rewrite"] and history[1]["proof_id"], history[1])
        self.assertEqual(p.fibonacci(100), 354224848179261915075)
        p.close()
        self.assertEqual(self.executions(), 5)
        # the CLI sees what Python recorded
        out = subprocess.run([os.environ.get("FLUX", os.path.join(ROOT, "build", "flux")), "traces",
                              FIB, "--store", self.store, "--json"], capture_output=True,
                             text=True, check=True).stdout
        self.assertEqual(len(out.splitlines()), 5)

    def test_explain_is_a_dict(self):
        with flux.load(PRIMES, store=self.store) as p:
            tree = p.explain("find_primes(1000)[10]")
            self.assertEqual(tree["value"], 31)
            self.assertEqual(tree["version"]["label"], "v1")
            self.assertIsInstance(tree["decisions"], list)
            with self.assertRaises(flux.FluxError):
                p.explain("find_primes(")


if __name__ == "__main__":
    unittest.main()
