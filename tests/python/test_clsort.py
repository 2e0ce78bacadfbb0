"""Tests of the Python module (python/clsort) against NumPy's stable sorts,
cumulative sums and the documented key order, on $CLSORT_TEST_DEVICE (or
the default device). Exits 77 (skipped) when NumPy is missing."""

import os
import sys
import threading
import unittest

try:
    import numpy as np
except ImportError:
    print("numpy not found: skipped")
    sys.exit(77)

import clsort

DEVICE = os.environ.get("CLSORT_TEST_DEVICE") or None
try:
    CTX = clsort.Context(DEVICE)
except clsort.Error as e:
    if e.name == "CLSORT_ERROR_NO_PLATFORM":
        print("no OpenCL platform: skipped")
        sys.exit(77)
    raise
FULL = os.environ.get("CLSORT_TEST_FULL") == "1"

INT_TYPES = [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64]
ALL_TYPES = INT_TYPES + [np.float32, np.float64]
SIZES = [0, 1, 2, 3, 31, 32, 33, 1000, 4093, 65535, 65536, 65537] + \
        ([1 << 20, (1 << 20) + 7, 3000017] if FULL else [(1 << 18) + 1])


def ranks(x):
    """Ranks under the library's order: equal keys (-0.0 and +0.0, and every
    NaN, which sorts last) get the same rank."""
    if x.dtype.kind == "f":
        x = np.where(np.isnan(x), np.nan, x)  # one NaN, whatever the payload
    return np.unique(x, return_inverse=True)[1].astype(np.int64)


def ref_perm(x, descending=False):
    r = ranks(x)
    return np.argsort(-r if descending else r, kind="stable")


def bits_of(x):
    """The array's bit patterns, for bit-exact comparisons."""
    return x.view(np.dtype("u%d" % x.dtype.itemsize))


def make(dtype, n, dist, seed):
    g = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        if dist == "specials":
            pool = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5,
                             np.finfo(dt).max, np.finfo(dt).tiny, -np.finfo(dt).tiny], dtype=dt)
            return pool[g.integers(0, len(pool), n)]
        x = (g.standard_normal(n) * 1e3).astype(dt)
    else:
        info = np.iinfo(dt)
        x = g.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    if dist == "equal":
        x[:] = x[0] if n else 0
    elif dist == "sorted":
        x.sort(kind="stable")
    elif dist == "reversed":
        x = np.sort(x, kind="stable")[::-1].copy()
    elif dist == "few":
        x = x[g.integers(0, min(5, n), n)] if n else x
    elif dist == "narrow":
        x = (g.integers(0, 16, n)).astype(dt)
    return np.ascontiguousarray(x)


class Sorts(unittest.TestCase):
    def check_keys(self, x, out, descending=False):
        """out holds the keys of x in the reference order, bit for bit."""
        np.testing.assert_array_equal(bits_of(out), bits_of(x[ref_perm(x, descending)]))

    def check_sorted(self, x, out, perm, descending=False):
        """... and perm (from the library) is the reference permutation."""
        want = ref_perm(x, descending)
        np.testing.assert_array_equal(perm, want)
        np.testing.assert_array_equal(bits_of(out), bits_of(x[want]))

    def test_keys_every_type_and_size(self):
        for t in ALL_TYPES:
            for n in SIZES:
                x = make(t, n, "uniform", n)
                out = x.copy()
                CTX.sort_inplace(out)
                self.check_keys(x, out)

    def test_adversarial(self):
        dists = ["equal", "sorted", "reversed", "few", "narrow"]
        for t in ALL_TYPES:
            for d in dists + (["specials"] if np.dtype(t).kind == "f" else []):
                for n in (1000, 70001):
                    x = make(t, n, d, 7)
                    out = x.copy()
                    CTX.sort_inplace(out)
                    self.check_keys(x, out)

    def test_float_order(self):
        x = np.array([np.nan, 1.0, -0.0, np.inf, 0.0, -np.inf, -1.0, -np.nan, 0.0, -0.0],
                     dtype=np.float32)
        out = x.copy()
        CTX.sort_inplace(out)
        # -inf < -1 < -0.0 == +0.0 (input order) < 1 < inf < NaN (input order)
        np.testing.assert_array_equal(bits_of(out), bits_of(x[[5, 6, 2, 4, 8, 9, 1, 3, 0, 7]]))
        out = x.copy()
        CTX.sort_inplace(out, descending=True)
        np.testing.assert_array_equal(bits_of(out), bits_of(x[[0, 7, 3, 1, 2, 4, 8, 9, 6, 5]]))

    def test_descending_and_argsort(self):
        for t in (np.uint8, np.int16, np.int32, np.uint64, np.float32, np.float64):
            for n in (0, 1, 33, 65537):
                x = make(t, n, "few" if n > 40 else "uniform", 3)
                out = x.copy()
                CTX.sort_inplace(out, descending=True)
                self.check_keys(x, out, True)
                before = x.copy()
                p = CTX.argsort(x, descending=True)
                self.assertEqual(p.dtype, np.intp)  # as np.argsort
                np.testing.assert_array_equal(p, ref_perm(x, True))
                p = CTX.argsort(x, descending=True, index_dtype=np.uint32)
                self.assertEqual(p.dtype, np.uint32)
                np.testing.assert_array_equal(p, ref_perm(x, True))
                np.testing.assert_array_equal(bits_of(x), bits_of(before))  # keys unchanged
                p64 = CTX.argsort(x, index_dtype=np.uint64)
                self.assertEqual(p64.dtype, np.uint64)
                np.testing.assert_array_equal(p64, ref_perm(x))

    def test_bit_window(self):
        x = make(np.uint32, 100003, "uniform", 11)
        for b, e in ((0, 10), (8, 16), (4, 32), (31, 32)):
            for desc in (False, True):
                out = x.copy()
                CTX.sort_inplace(out, bits=(b, e), descending=desc)
                digit = ((x >> np.uint32(b)) & np.uint32((1 << (e - b)) - 1)).astype(np.int64)
                want = np.argsort(-digit if desc else digit, kind="stable")
                np.testing.assert_array_equal(out, x[want])
        # signed keys: bits of the image with the sign bit flipped
        y = make(np.int32, 50001, "uniform", 12)
        out = y.copy()
        CTX.sort_inplace(out, bits=(24, 32))
        top = ((y.view(np.uint32) ^ np.uint32(1 << 31)) >> np.uint32(24)).astype(np.int64)
        np.testing.assert_array_equal(out, y[np.argsort(top, kind="stable")])
        with self.assertRaises(clsort.Error) as e:
            CTX.sort_inplace(x.copy(), bits=(0, 33))
        self.assertEqual(e.exception.name, "CLSORT_ERROR_INVALID_BITS")

    def test_radix_bits(self):
        x = make(np.uint64, 20011, "uniform", 13)
        for r in (1, 4, 7, 8):
            out = x.copy()
            CTX.sort_inplace(out, radix_bits=r, algorithm="classic")
            self.check_keys(x, out)
        k = x.copy()
        with self.assertRaises(clsort.Error):
            CTX.sort_inplace(k, radix_bits=99)
        np.testing.assert_array_equal(k, x)

    def test_algorithms(self):
        x = make(np.int32, 3001, "few", 5)
        for a in clsort.ALGORITHMS:
            out = x.copy()
            CTX.sort_inplace(out, algorithm=a)
            self.check_keys(x, out)
            k, v = x.copy(), np.arange(x.size, dtype=np.uint64)
            CTX.sort_pairs(k, v, algorithm=a, descending=True)
            self.check_sorted(x, k, v, True)
            np.testing.assert_array_equal(CTX.argsort(x, algorithm=a), ref_perm(x))

    def test_pairs(self):
        for t in (np.uint32, np.int64, np.float32, np.uint16):
            for n in (0, 1, 1000, 65537):
                x = make(t, n, "few", 9)
                k = x.copy()
                v = np.arange(n, dtype=np.uint32)
                CTX.sort_pairs(k, v)
                self.check_sorted(x, k, v)
        # rows of any shape and dtype move with their keys (particle records)
        n = 50001
        x = make(np.uint32, n, "narrow", 2)
        rows = np.random.default_rng(1).random((n, 3))
        k, r = x.copy(), rows.copy()
        CTX.sort_pairs(k, r, descending=True)
        want = ref_perm(x, True)
        np.testing.assert_array_equal(r, rows[want])
        rec = np.zeros(n, dtype=[("a", "<f4"), ("b", "<i8"), ("c", "u1")])
        rec["b"] = np.arange(n)
        k = x.copy()
        CTX.sort_pairs(k, rec)
        np.testing.assert_array_equal(rec["b"], ref_perm(x))
        # value sizes 1, 2, 8 and 16 bytes (the fast paths)
        for vt, shape in ((np.uint8, ()), (np.uint16, ()), (np.float64, ()), (np.uint64, (2,))):
            v = np.random.default_rng(4).integers(0, 200, (n,) + shape).astype(vt)
            k, w = x.copy(), v.copy()
            CTX.sort_pairs(k, w)
            np.testing.assert_array_equal(w, v[ref_perm(x)])

    def test_threads_share_a_context(self):
        xs = [make(np.uint32, 100003, "uniform", 20 + i) for i in range(4)]
        outs = [x.copy() for x in xs]
        ts = [threading.Thread(target=CTX.sort_inplace, args=(o,)) for o in outs]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        for x, o in zip(xs, outs):
            self.check_keys(x, o)


class NumPyConventions(unittest.TestCase):
    """sort, sort_inplace and argsort as np.sort, ndarray.sort, np.argsort."""

    def test_copy_and_axes(self):
        g = np.random.default_rng(40)
        x = g.standard_normal((5, 7, 1001)).astype(np.float32)
        x[1, 2, 3] = np.nan
        x[2, 3, 4] = -0.0
        before = x.copy()
        for axis in (-1, 2, 1, 0, -3, None):
            want = np.sort(x, axis=axis, kind="stable")
            got = CTX.sort(x, axis=axis)
            self.assertEqual(got.shape, want.shape)
            np.testing.assert_array_equal(got, want)  # NaN last, as NumPy
            np.testing.assert_array_equal(CTX.argsort(x, axis=axis),
                                          np.argsort(x, axis=axis, kind="stable"))
        np.testing.assert_array_equal(bits_of(x), bits_of(before))  # the input is not changed
        for kind in (None, "stable", "mergesort", "quicksort", "heapsort"):
            np.testing.assert_array_equal(clsort.sort(x[0, 0], kind=kind), np.sort(x[0, 0]))

    def test_layouts_and_dtypes(self):
        g = np.random.default_rng(41)
        x = g.integers(-1000, 1000, 30001).astype(np.int32)
        cases = [x[::3], x.astype(">i4"), x.reshape(-1, 1)[:, 0], list(x[:100]),
                 (x > 0), x.astype(np.uint8), np.asfortranarray(x[:30000].reshape(100, 300))]
        for a in cases:
            want = np.sort(a, kind="stable")
            got = clsort.sort(a)
            np.testing.assert_array_equal(got, want)
            self.assertEqual(got.dtype, np.asarray(a).dtype.newbyteorder("="))
            np.testing.assert_array_equal(clsort.argsort(a), np.argsort(a, kind="stable"))
        self.assertEqual(clsort.sort(np.array([], dtype=np.float64)).size, 0)
        np.testing.assert_array_equal(clsort.sort(np.zeros((3, 0), dtype=np.int8)),
                                      np.zeros((3, 0)))

    def test_in_place(self):
        g = np.random.default_rng(42)
        x = g.random((300, 257))
        for axis in (-1, 0):
            a = x.copy()
            self.assertIsNone(CTX.sort_inplace(a, axis=axis))
            np.testing.assert_array_equal(a, np.sort(x, axis=axis))
        a = x.copy()
        view = a[:, ::2]  # a strided view: sorted through one copy, written back
        clsort.sort_inplace(view)
        np.testing.assert_array_equal(a[:, ::2], np.sort(x[:, ::2]))
        np.testing.assert_array_equal(a[:, 1::2], x[:, 1::2])
        b = (x > 0.5)
        clsort.sort_inplace(b, axis=0)
        np.testing.assert_array_equal(b, np.sort(x > 0.5, axis=0))
        for t in (np.uint32, np.uint64):
            np.testing.assert_array_equal(CTX.argsort(x, index_dtype=t),
                                          np.argsort(x, kind="stable"))


class Segments(unittest.TestCase):
    def test_fixed_length(self):
        for t in (np.uint32, np.float64, np.int8):
            for length in (1, 7, 8192, 9000):
                n = 5 * length + 3  # a tail outside every segment
                x = make(t, n, "uniform", length)
                out = x.copy()
                CTX.sort_segments(out, length=length)
                for s in range(5):
                    seg = x[s * length:(s + 1) * length]
                    np.testing.assert_array_equal(bits_of(out[s * length:(s + 1) * length]),
                                                  bits_of(seg[ref_perm(seg)]))
                np.testing.assert_array_equal(bits_of(out[5 * length:]), bits_of(x[5 * length:]))
        # with rows of values, descending, floats with NaN
        x = make(np.float32, 4 * 1000 + 9, "specials", 5)
        rows = np.random.default_rng(5).random((x.size, 2))
        k, r = x.copy(), rows.copy()
        CTX.sort_segments(k, r, length=1000, descending=True)
        for s in range(4):
            a = s * 1000
            want = a + ref_perm(x[a:a + 1000], True)
            np.testing.assert_array_equal(bits_of(k[a:a + 1000]), bits_of(x[want]))
            np.testing.assert_array_equal(r[a:a + 1000], rows[want])
        np.testing.assert_array_equal(r[4000:], rows[4000:])

    def test_offsets_and_pairs(self):
        offs = np.array([0, 0, 1, 17, 17, 4113, 4114, 70000, 70001, 90000], dtype=np.int64)
        n = 90010
        x = make(np.int32, n, "few", 4)
        k, v = x.copy(), np.arange(n, dtype=np.uint64)
        CTX.sort_segments(k, v, offsets=offs, descending=True)
        for s in range(len(offs) - 1):
            a, b = offs[s], offs[s + 1]
            want = a + ref_perm(x[a:b], True)
            np.testing.assert_array_equal(v[a:b], want)
            np.testing.assert_array_equal(k[a:b], x[want])
        np.testing.assert_array_equal(k[offs[-1]:], x[offs[-1]:])
        np.testing.assert_array_equal(v[offs[-1]:], np.arange(offs[-1], n))

    def test_bad_offsets_leave_data(self):
        x = make(np.uint32, 100, "uniform", 6)
        v = np.arange(100, dtype=np.uint32)
        for offs in ([0, 50, 20], [0, 101], np.array([0, 10, 200], dtype=np.uint64)):
            k, w = x.copy(), v.copy()
            with self.assertRaises(clsort.Error):
                CTX.sort_segments(k, w, offsets=offs)
            np.testing.assert_array_equal(k, x)
            np.testing.assert_array_equal(w, v)
        with self.assertRaises(ValueError):
            CTX.sort_segments(x.copy(), offsets=np.array([0, -1, 5]))
        with self.assertRaises(TypeError):
            CTX.sort_segments(x.copy(), offsets=[0, 1.5, 5])


class Scans(unittest.TestCase):
    def test_integer_scans(self):
        for t in (np.uint32, np.uint64, np.int32, np.int64):
            for n in (0, 1, 255, 256, 257, 100003) + (((1 << 24) + 5,) if FULL else ()):
                a = make(t, n, "uniform", n)  # sums wrap around, as NumPy's do
                inc = np.cumsum(a, dtype=t)
                exc = np.concatenate([np.zeros(min(n, 1), dtype=t), inc[:-1]]) if n else inc
                np.testing.assert_array_equal(CTX.scan(a, inclusive=True), inc)
                np.testing.assert_array_equal(CTX.scan(a), exc)

    def test_u64_beyond_32_bits(self):
        a = np.full(100000, 3_000_000_000, dtype=np.uint64)
        np.testing.assert_array_equal(CTX.scan(a, inclusive=True)[-1], 300_000_000_000_000)

    def test_out_and_in_place(self):
        a = make(np.int64, 5003, "uniform", 3)
        out = np.empty_like(a)
        self.assertIs(CTX.scan(a, out=out), out)
        want = np.concatenate([[0], np.cumsum(a)[:-1]]).astype(np.int64)
        np.testing.assert_array_equal(out, want)
        b = a.copy()
        CTX.scan(b, out=b)
        np.testing.assert_array_equal(b, want)
        f = np.random.default_rng(3).random(3001)
        np.testing.assert_allclose(CTX.scan(f), np.concatenate([[0.0], np.cumsum(f)[:-1]]),
                                   rtol=1e-10)
        with self.assertRaises(TypeError):
            CTX.scan(np.arange(10, dtype=np.uint8))

    def test_float_scans_in_place(self):
        for t in (np.float32, np.float64):
            a = np.random.default_rng(2).random(70001).astype(t)
            want = np.cumsum(a.astype(np.float64))
            out = CTX.scan(a, inclusive=True, out=a)
            self.assertIs(out, a)
            np.testing.assert_allclose(a, want, rtol=1e-4 if t == np.float32 else 1e-10)


class Errors(unittest.TestCase):
    def test_bad_arrays(self):
        x = np.arange(10, dtype=np.uint32)
        with self.assertRaises(TypeError):
            CTX.sort_inplace(np.arange(10, dtype=np.float16))
        with self.assertRaises(TypeError):
            CTX.sort(np.arange(10, dtype=np.complex64))
        with self.assertRaises(TypeError):
            CTX.sort_inplace(list(range(10)))  # nowhere to sort in place
        with self.assertRaises(ValueError):
            CTX.sort(np.zeros((3, 3), dtype=np.uint32), kind="bogus")
        with self.assertRaises(getattr(np, "exceptions", np).AxisError):
            CTX.sort(np.zeros((3, 3), dtype=np.uint32), axis=2)
        with self.assertRaises(TypeError):
            CTX.sort(np.zeros(3, dtype=np.uint32), axis=1.0)
        ro = np.arange(10, dtype=np.uint32)
        ro.flags.writeable = False
        with self.assertRaises(ValueError):
            CTX.sort_inplace(ro)
        with self.assertRaises(ValueError):
            CTX.sort_pairs(x, np.arange(9, dtype=np.uint32))
        with self.assertRaises(ValueError):
            CTX.sort_inplace(x, algorithm="quick")
        with self.assertRaises(ValueError):
            CTX.sort_inplace(x, bits=(5, 2))
        with self.assertRaises(ValueError):
            CTX.sort_segments(x)
        with self.assertRaises(TypeError):
            CTX.argsort(x, index_dtype=np.int32)
        with self.assertRaises(TypeError):
            CTX.sort_pairs(x, np.array([None] * 10))  # Python objects
        with self.assertRaises(TypeError):
            CTX.sort_inplace(np.ma.array(x, mask=x % 2 == 0))  # the mask would not move
        with self.assertRaises(TypeError):
            CTX.sort_inplace(x, bits=(True, 3))
        with self.assertRaisesRegex(ValueError, "begin_bit -1 is negative"):
            CTX.sort_inplace(x, bits=(-1, 8))
        with self.assertRaises(ValueError):
            CTX.sort_inplace(x, bits=(0, 2 ** 32))  # not wrapped to a full-width sort
        with self.assertRaises(ValueError):
            CTX.sort_inplace(x, radix_bits=2 ** 32 + 4)
        with self.assertRaises(ValueError):
            clsort.Context("cp\0u")
        ro = np.arange(10, dtype=np.uint32)[::-1].copy()
        ro.flags.writeable = False
        np.testing.assert_array_equal(CTX.argsort(ro), np.arange(10)[::-1])  # reads only
        with self.assertRaises(ValueError):
            CTX.scan(x, out=np.empty(9, dtype=np.uint32))

    def test_library_errors_leave_data(self):
        x = make(np.uint32, 1000, "uniform", 1)
        k = x.copy()
        with self.assertRaises(clsort.Error) as e:
            CTX.sort_inplace(k, bits=(0, 40))
        self.assertEqual(e.exception.name, "CLSORT_ERROR_INVALID_BITS")
        self.assertIn("40", str(e.exception))
        np.testing.assert_array_equal(k, x)
        big = make(np.uint32, (1 << 20) + 1, "uniform", 2)
        k = big.copy()
        with self.assertRaises(clsort.Error):
            CTX.sort_inplace(k, algorithm="selection")  # n^2: at most 2^20 keys
        np.testing.assert_array_equal(k, big)
        v = np.zeros((1000, 0), dtype=np.uint8)  # rows of 0 bytes
        k = x.copy()
        with self.assertRaises(clsort.Error):
            CTX.sort_pairs(k, v)
        np.testing.assert_array_equal(k, x)
        with self.assertRaises(clsort.Error):
            CTX.sort_segments(k, offsets=[0, 5, 3])  # decreasing
        np.testing.assert_array_equal(k, x)

    def test_context(self):
        with self.assertRaises(clsort.Error) as e:
            clsort.Context("no such device anywhere")
        self.assertEqual(e.exception.name, "CLSORT_ERROR_DEVICE_NOT_FOUND")
        with self.assertRaises(clsort.Error) as e:
            clsort.Context(DEVICE, tuning="bogus=1")
        self.assertIn("bogus", str(e.exception))
        with clsort.Context(DEVICE, tuning="algorithm=classic") as c:
            self.assertIn("algorithm=classic", c.tuning)
            with self.assertRaises(clsort.Error):
                c.set_tuning("radix_bits=99")
            x = make(np.int64, 5000, "uniform", 8)
            out = c.sort(x.copy())
            np.testing.assert_array_equal(out, np.sort(x, kind="stable"))
            c.set_tuning(None)
            self.assertIn("device_name", c.device)
        with self.assertRaises(ValueError):
            c.sort(np.arange(3, dtype=np.uint32))  # closed
        self.assertTrue(any(d["is_default"] for d in clsort.devices()))
        self.assertIn("os_items", clsort.tuning_keys())

    def test_host_tier_on_cpus(self):
        # the module turns the host tier on for its contexts on CPU devices
        # (docs/USAGE.md, "First use"), unless the spec names tier_max
        want = "tier_max=%d" % clsort.HOST_TIER_MAX
        with clsort.Context(DEVICE) as c:
            self.assertEqual(want in c.tuning.split(","), c.device["is_cpu"])
        with clsort.Context(DEVICE, tuning="tier_max=0") as c:
            self.assertNotIn(want, c.tuning.split(","))

    def test_memmap(self):
        import tempfile
        x = make(np.int32, 10007, "uniform", 30)
        with tempfile.TemporaryDirectory() as d:
            m = np.memmap(os.path.join(d, "keys.bin"), dtype=np.int32, mode="w+", shape=x.shape)
            m[:] = x
            CTX.sort_inplace(m)  # a memmap is a plain array of the file's pages
            m.flush()
            back = np.fromfile(os.path.join(d, "keys.bin"), dtype=np.int32)
            np.testing.assert_array_equal(back, np.sort(x, kind="stable"))
            del m

    def test_module_functions(self):
        x = make(np.float64, 12345, "specials", 3)
        out = clsort.sort(x.copy())
        np.testing.assert_array_equal(bits_of(out), bits_of(x[ref_perm(x)]))
        np.testing.assert_array_equal(clsort.argsort(x), ref_perm(x))
        self.assertIsInstance(clsort.default_context(), clsort.Context)

    def test_warmup_and_clear_cache(self):
        CTX.warmup([np.uint8])
        with self.assertRaises(TypeError):
            CTX.warmup([np.complex64])
        import tempfile
        saved = os.environ.get("POCL_CACHE_DIR")
        with tempfile.TemporaryDirectory() as mine, tempfile.TemporaryDirectory() as pocl:
            for d, name in ((mine, "0123456789abcdef.clbin"), (mine, "tuning-x.txt"),
                            (pocl, "program.bc")):
                open(os.path.join(d, name), "w").close()
            os.environ["POCL_CACHE_DIR"] = pocl  # what clear_cache removes, not PoCL's own
            try:
                clsort.clear_cache(mine, driver=False)
                self.assertEqual(sorted(os.listdir(mine)), ["tuning-x.txt"])
                self.assertEqual(os.listdir(pocl), ["program.bc"])
                clsort.clear_cache(mine)
                self.assertEqual(os.listdir(pocl), [])
                self.assertEqual(os.listdir(mine), ["tuning-x.txt"])  # saved tunings stay
            finally:
                if saved is None:
                    del os.environ["POCL_CACHE_DIR"]
                else:
                    os.environ["POCL_CACHE_DIR"] = saved

    def test_crash_mark(self):
        """A mark left by a process that died inside PoCL (busy-*, unlocked)
        makes the next context compile afresh and warn; a mark a live
        process holds locked does not."""
        if "Portable Computing Language" not in CTX.device["platform_name"]:
            self.skipTest("the guard runs on PoCL only")
        import fcntl
        import tempfile
        import warnings
        with tempfile.TemporaryDirectory() as d:
            open(os.path.join(d, "busy-1-0"), "w").close()
            with self.assertWarnsRegex(RuntimeWarning, "died inside the OpenCL driver"):
                clsort.Context(DEVICE, cache_dir=d).close()
            self.assertFalse(os.path.exists(os.path.join(d, "busy-1-0")))
            with open(os.path.join(d, "driver-salt.txt")) as f:
                self.assertEqual(f.read().strip(), "1")
            with open(os.path.join(d, "busy-2-0"), "w") as held:
                fcntl.lockf(held, fcntl.LOCK_EX)  # alive: a child process tests the lock
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    import subprocess
                    code = ("import clsort, warnings; warnings.simplefilter('error'); "
                            "clsort.Context(%r, cache_dir=%r).close()" % (DEVICE, d))
                    subprocess.run([sys.executable, "-c", code], check=True)
                self.assertTrue(os.path.exists(os.path.join(d, "busy-2-0")))


if __name__ == "__main__":
    unittest.main(verbosity=1)
