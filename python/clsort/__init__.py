"""clsort for Python: stable sorts, segmented sorts and scans of NumPy arrays
on OpenCL devices (GPUs, and CPUs through PoCL), through libclsort.

    import numpy as np, clsort
    keys = np.random.default_rng(1).random(1 << 20, dtype=np.float32)
    s = clsort.sort(keys)                  # a sorted copy, as np.sort
    clsort.sort_inplace(keys)              # in place, as keys.sort()
    order = clsort.argsort(keys, descending=True)

sort, sort_inplace and argsort follow NumPy's np.sort, ndarray.sort and
np.argsort: axis (-1: every row of the last axis sorted on its own, in one
segmented sort; None: flattened), kind (accepted and always stable), NaNs
last, any layout and byte order, bool too; they make no copy beyond the one
NumPy's semantics require. sort_pairs, sort_segments and scan take
C-contiguous arrays of native byte order and never copy them. Key types: uint8/16/32/64, int8/16/32/64, float32, float64
(floats in the order -inf < ... < -0.0 == +0.0 < ... < +inf < NaN). Values
of sort_pairs may be any C-contiguous array with one row per key (any
dtype without Python objects, any row size up to 65536 bytes). Plain
ndarrays and np.memmap are accepted; other subclasses (masked arrays,
matrices) are refused, since their extra state would not move with the
data. Errors raise clsort.Error with the library's message (and the OpenCL
build log when a kernel failed to build); when a call fails the caller's
arrays are unchanged. The GIL is released during a call: other threads must
not touch its arrays until it returns.

The module-level functions use one default Context, created on first use
on $CLSORT_DEVICE or the first GPU, else the first CPU. A Context may be
used by one thread at a time (its methods take a lock); distinct contexts
are independent.

libclsort is found through $CLSORT_LIBRARY (a path), then next to this
package, then in the build/ folder of a checkout this package belongs to,
then on the system's library path.
"""

import atexit
import ctypes
import ctypes.util
import os
import sys
import threading
import warnings
import weakref

import numpy as np

__all__ = [
    "Error", "Context", "devices", "default_context", "sort", "sort_inplace", "sort_pairs",
    "argsort",
    "sort_segments", "scan", "tuning_keys", "ALGORITHMS", "KEY_DTYPES", "SCAN_DTYPES",
    "warmup", "clear_cache",
]


# ------------------------------------------------------------------ library

def _library_candidates():
    env = os.environ.get("CLSORT_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    names = {"darwin": "libclsort.dylib", "win32": "clsort.dll"}.get(sys.platform, "libclsort.so")
    yield os.path.join(here, names)
    yield os.path.join(here, "..", "..", "build", names)  # a checkout: python/clsort -> build/
    found = ctypes.util.find_library("clsort")
    if found:
        yield found


def _load():
    tried = []
    for path in _library_candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("clsort: libclsort not found; build it (scripts/build.sh) or set "
                      "CLSORT_LIBRARY to its path. Tried: " + ", ".join(tried or ["nothing"]))


_lib = _load()

_size_t = ctypes.c_size_t
_vp = ctypes.c_void_p
_status = ctypes.c_int32


class _Config(ctypes.Structure):
    _fields_ = [("device", ctypes.c_char_p), ("cache_dir", ctypes.c_char_p),
                ("tuning", ctypes.c_char_p), ("device_memory", ctypes.c_uint64),
                ("reserved", ctypes.c_uint32 * 6)]


class _Options(ctypes.Structure):
    _fields_ = [("begin_bit", ctypes.c_uint), ("end_bit", ctypes.c_uint),
                ("descending", ctypes.c_int), ("algorithm", ctypes.c_int),
                ("radix_bits", ctypes.c_uint), ("reserved", ctypes.c_uint32 * 8)]


class _Segments(ctypes.Structure):
    _fields_ = [("count", _size_t), ("length", _size_t), ("offsets", _vp),
                ("offsets_buffer", _vp), ("offsets_offset", _size_t), ("max_length", _size_t),
                ("reserved", ctypes.c_uint32 * 4)]


class _DeviceInfo(ctypes.Structure):
    _fields_ = [("platform_index", ctypes.c_uint), ("device_index", ctypes.c_uint),
                ("platform_name", ctypes.c_char * 128), ("platform_version", ctypes.c_char * 128),
                ("device_name", ctypes.c_char * 128), ("vendor", ctypes.c_char * 128),
                ("driver_version", ctypes.c_char * 128), ("device_version", ctypes.c_char * 128),
                ("is_gpu", ctypes.c_int), ("is_cpu", ctypes.c_int), ("is_default", ctypes.c_int),
                ("global_mem_bytes", ctypes.c_uint64), ("max_alloc_bytes", ctypes.c_uint64),
                ("local_mem_bytes", ctypes.c_uint64), ("compute_units", ctypes.c_uint),
                ("max_work_group_size", ctypes.c_uint), ("max_clock_mhz", ctypes.c_uint)]


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_create = _fn("clsort_context_create_with_config", _status, ctypes.POINTER(_vp),
              ctypes.POINTER(_Config))
_release = _fn("clsort_context_release", None, _vp)
_last_error = _fn("clsort_context_last_error", ctypes.c_char_p, _vp)
_status_string = _fn("clsort_status_string", ctypes.c_char_p, _status)
_device_list = _fn("clsort_device_list", _status, ctypes.POINTER(_DeviceInfo), _size_t,
                   ctypes.POINTER(_size_t))
_device_info = _fn("clsort_context_device_info", _status, _vp, ctypes.POINTER(_DeviceInfo))
_sort_keys = _fn("clsort_sort_keys", _status, _vp, ctypes.c_int, _vp, _size_t,
                 ctypes.POINTER(_Options))
_sort_keys_copy = _fn("clsort_sort_keys_copy", _status, _vp, ctypes.c_int, _vp, _vp, _size_t,
                      ctypes.POINTER(_Options))
_sort_pairs = _fn("clsort_sort_pairs", _status, _vp, ctypes.c_int, _vp, _vp, _size_t, _size_t,
                  ctypes.POINTER(_Options))
_argsort = _fn("clsort_argsort", _status, _vp, ctypes.c_int, _vp, _size_t, ctypes.c_int, _vp,
               ctypes.POINTER(_Options))
_sort_segments = _fn("clsort_sort_segments", _status, _vp, ctypes.c_int, _vp, _size_t,
                     ctypes.POINTER(_Segments), ctypes.POINTER(_Options))
_sort_segments_pairs = _fn("clsort_sort_segments_pairs", _status, _vp, ctypes.c_int, _vp, _vp,
                           _size_t, _size_t, ctypes.POINTER(_Segments), ctypes.POINTER(_Options))
_scan = _fn("clsort_scan", _status, _vp, ctypes.c_int, _vp, _vp, _size_t, ctypes.c_int)
_set_tuning = _fn("clsort_context_set_tuning", _status, _vp, ctypes.c_char_p)
_get_tuning = _fn("clsort_context_get_tuning", _size_t, _vp, ctypes.c_char_p, _size_t)
_tuning_keys = _fn("clsort_tuning_keys", ctypes.c_char_p)
_warmup = _fn("clsort_context_warmup", _status, _vp, ctypes.POINTER(ctypes.c_int), _size_t,
              ctypes.c_uint)
_recovered = _fn("clsort_context_recovered", ctypes.c_int, _vp)
_cache_clear = _fn("clsort_cache_clear", _status, ctypes.c_char_p, ctypes.c_int)

# clsort_type values (pinned in clsort.h)
KEY_DTYPES = {np.dtype(t): code for t, code in (
    (np.uint8, 1), (np.uint16, 2), (np.uint32, 3), (np.uint64, 4), (np.int8, 5), (np.int16, 6),
    (np.int32, 7), (np.int64, 8), (np.float32, 9), (np.float64, 10))}
SCAN_DTYPES = tuple(np.dtype(t) for t in (np.uint32, np.uint64, np.int32, np.int64, np.float32,
                                          np.float64))
# clsort_algorithm values (pinned in clsort.h)
ALGORITHMS = {"auto": 0, "onesweep": 1, "classic": 2, "bitonic": 3, "bitonic_global": 4,
              "selection": 5, "selection_local": 6}


class Error(Exception):
    """A failed clsort call: status is the library's (or OpenCL's) code,
    name its name, and str() the detailed message."""

    def __init__(self, status, message):
        self.status = status
        text = _status_string(status).decode(errors="replace")
        self.name = text.split(":")[0]  # "CLSORT_ERROR_..." or "CL_..."
        super().__init__("%s: %s" % (self.name, message) if message else text)


def _info_dict(d):
    s = lambda b: b.decode(errors="replace")
    return {"platform_index": d.platform_index, "device_index": d.device_index,
            "platform_name": s(d.platform_name), "platform_version": s(d.platform_version),
            "device_name": s(d.device_name), "vendor": s(d.vendor),
            "driver_version": s(d.driver_version), "device_version": s(d.device_version),
            "is_gpu": bool(d.is_gpu), "is_cpu": bool(d.is_cpu), "is_default": bool(d.is_default),
            "global_mem_bytes": d.global_mem_bytes, "max_alloc_bytes": d.max_alloc_bytes,
            "local_mem_bytes": d.local_mem_bytes, "compute_units": d.compute_units,
            "max_work_group_size": d.max_work_group_size, "max_clock_mhz": d.max_clock_mhz}


def devices():
    """The OpenCL devices present, as dicts (clsort_device_list); the one a
    Context() without a device picks has is_default True."""
    count = _size_t(0)
    st = _device_list(None, 0, ctypes.byref(count))
    if st != 0:
        raise Error(st, _last_error(None).decode(errors="replace"))
    arr = (_DeviceInfo * max(count.value, 1))()
    st = _device_list(arr, len(arr), ctypes.byref(count))
    if st != 0:
        raise Error(st, _last_error(None).decode(errors="replace"))
    return [_info_dict(arr[i]) for i in range(min(count.value, len(arr)))]


def tuning_keys():
    """The tuning spec keys with their meaning, one per line."""
    return _tuning_keys().decode()


# --------------------------------------------------------------- arguments

_UINT_MAX = 0xFFFFFFFF


def _uint(v, what, lo=0, hi=_UINT_MAX):
    """An integer argument (not a bool) in [lo, hi]."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError("%s must be an integer, not %r" % (what, v))
    v = int(v)
    if not lo <= v <= hi:
        raise ValueError("%s must be in [%d, %d], not %d" % (what, lo, hi, v))
    return v


def _text(s, what):
    """A string argument for the library (str or bytes, no NUL), or None."""
    if s is None:
        return None
    if isinstance(s, str):
        s = s.encode()
    if not isinstance(s, bytes):
        raise TypeError("%s must be a string, not %s" % (what, type(s).__name__))
    if b"\0" in s:
        raise ValueError("%s must not contain NUL characters" % what)
    return s


def _array(a, what, dtypes=None, ndim1=True, writable=True, contiguous=True):
    if type(a) is not np.ndarray and not isinstance(a, np.memmap):
        if isinstance(a, np.ndarray):
            raise TypeError("%s: %s is not supported (its extra state would not move with the "
                            "data); pass a plain ndarray" % (what, type(a).__name__))
        raise TypeError("%s must be a NumPy array, not %s" % (what, type(a).__name__))
    if a.dtype.hasobject:
        raise TypeError("%s: dtype %s holds Python objects, which cannot be moved outside "
                        "the interpreter" % (what, a.dtype))
    if ndim1 and a.ndim != 1:
        raise ValueError("%s must be one-dimensional (shape %s)" % (what, a.shape))
    if contiguous and not a.flags.c_contiguous:
        raise ValueError("%s must be C-contiguous (pass np.ascontiguousarray(...), then use "
                         "the result)" % what)
    if writable and not a.flags.writeable:
        raise ValueError("%s is read-only" % what)
    if dtypes is not None:
        if a.dtype not in dtypes or not a.dtype.isnative:
            raise TypeError("%s: dtype %s is not supported (supported: %s, native byte order)"
                            % (what, a.dtype, ", ".join(str(d) for d in dtypes)))
    return a


def _rows(values, n):
    """Checks that values holds one row per key and returns a row's bytes."""
    _array(values, "values", None, ndim1=False)
    if values.ndim == 0 or values.shape[0] != n:
        raise ValueError("values must have one row per key (%d), not shape %s" % (n, values.shape))
    return values.itemsize * int(np.prod(values.shape[1:], dtype=np.int64))


def _options(descending, bits, algorithm, radix_bits):
    o = _Options()
    o.descending = 1 if descending else 0
    if bits is not None:
        try:
            begin, end = bits
        except (TypeError, ValueError):
            raise ValueError("bits must be a pair (begin_bit, end_bit)") from None
        # the library checks them against the key width; here only what
        # its unsigned fields can hold
        if isinstance(begin, (int, np.integer)) and not isinstance(begin, (bool, np.bool_)) \
                and begin < 0:
            raise ValueError("bits=(begin_bit, end_bit) counts bits from 0 (the lowest): "
                             "begin_bit %d is negative" % begin)
        o.begin_bit = _uint(begin, "begin_bit")
        o.end_bit = _uint(end, "end_bit", lo=1)
        if o.end_bit <= o.begin_bit:
            raise ValueError("bits must have begin_bit < end_bit, not %r" % (bits,))
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        raise ValueError("algorithm must be one of %s, not %r" % (", ".join(ALGORITHMS), algorithm))
    o.algorithm = ALGORITHMS[algorithm]
    o.radix_bits = _uint(radix_bits, "radix_bits")
    return o


def _ptr(a):
    return ctypes.c_void_p(a.ctypes.data)


_KINDS = (None, "stable", "mergesort", "quicksort", "heapsort")


def _check_kind(kind):
    """NumPy's kind: every sort here is stable, which satisfies them all."""
    if kind not in _KINDS:
        raise ValueError("kind must be one of %s, not %r"
                         % (", ".join(repr(k) for k in _KINDS), kind))


def _normalize_axis(axis, ndim):
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError("axis must be an integer or None, not %r" % (axis,))
    if ndim == 0 or not -ndim <= axis < ndim:
        raise getattr(np, "exceptions", np).AxisError(int(axis), ndim)
    return int(axis) % ndim


def _sort_dtype(dt):
    """The key dtype an array of dtype dt sorts as (bool as uint8), native
    byte order; None when it has none."""
    if dt == np.bool_:
        return np.dtype(np.uint8)
    native = dt.newbyteorder("=") if dt.byteorder not in "=|" else dt
    return native if native in KEY_DTYPES else None


def _keys_input(a, what):
    """An input of the copying functions: a NumPy array (or a sequence
    NumPy turns into one) of a key dtype."""
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    else:
        _array(a, what, None, ndim1=False, writable=False, contiguous=False)
    if _sort_dtype(a.dtype) is None:
        raise TypeError("%s: dtype %s is not supported (supported: %s, bool)"
                        % (what, a.dtype, ", ".join(str(d) for d in KEY_DTYPES)))
    return a


def _key_view(a):
    """a itself (bool viewed as uint8) when its dtype is a native key
    dtype, else None."""
    if a.dtype == np.bool_:
        return a.view(np.uint8)
    return a if a.dtype in KEY_DTYPES and a.dtype.isnative else None


def _native_copy(a):
    """A C-contiguous copy of a in its native key dtype."""
    dt = _sort_dtype(a.dtype)
    if a.dtype == np.bool_:
        return np.array(a, order="C").view(np.uint8)
    return np.array(a, dtype=dt, order="C", copy=True)


# ------------------------------------------------------------------ context

# Host-array sorts of up to this many elements run on the host while their
# kernels are cold (the tuning key tier_max), on CPU devices.
HOST_TIER_MAX = 1 << 25
# Every open context, closed at exit.
_contexts = weakref.WeakSet()


class Context:
    """One device, its compiled kernels and its temporary memory.

    device: None ($CLSORT_DEVICE, else the first GPU, else the first CPU),
    "gpu", "cpu", "P:D" (platform and device index, as `clsort info` lists),
    or part of a device or platform name. tuning: a spec such as
    "algorithm=classic" (see tuning_keys()). cache_dir: the program cache
    folder ("" disables it)."""

    def __init__(self, device=None, *, tuning=None, cache_dir=None):
        self._lock = threading.Lock()
        self._ctx = None
        cfg = _Config()
        cfg.device = _text(device, "device")
        cfg.tuning = _text(tuning, "tuning")
        cfg.cache_dir = _text(cache_dir, "cache_dir")
        self._keep = cfg  # the strings stay alive through the call
        p = _vp()
        st = _create(ctypes.byref(p), ctypes.byref(cfg))
        if st != 0:
            raise Error(st, _last_error(None).decode(errors="replace"))
        self._ctx = p
        _contexts.add(self)
        # The host tier on CPU devices (docs/USAGE.md, "First use"): a cold
        # first sort runs on the host while the kernels build in the
        # background. The library leaves it off for C callers, which must
        # release their contexts before exit for it; this module releases
        # every context before the interpreter exits (_close_all).
        spec = tuning if tuning is not None else os.environ.get("CLSORT_TUNING", "")
        info = _DeviceInfo()
        if ("tier_max" not in spec and _device_info(p, ctypes.byref(info)) == 0 and info.is_cpu
                and _set_tuning(p, b"tier_max=%d" % HOST_TIER_MAX) != 0):
            raise Error(-1, _last_error(p).decode(errors="replace"))
        if _recovered(p):
            warnings.warn("clsort: a process before this one died inside the OpenCL driver (a "
                          "damaged kernel cache?); the kernels are compiled afresh. "
                          "clsort.clear_cache() (or `clsort cache --clear`) empties the caches.",
                          RuntimeWarning, stacklevel=2)

    def warmup(self, dtypes=None, *, pairs=False, argsort=False):
        """Compiles (or loads from the caches) the kernels that sorts of
        these key dtypes take on the device (None: all ten), keys alone,
        plus (key, 4-byte value) pairs and 32-bit argsorts on request, so
        that later sorts, here or in other processes, start at once."""
        if dtypes is None:
            codes = list(KEY_DTYPES.values())
        else:
            codes = []
            for d in dtypes:
                dt = np.dtype(d)
                if dt not in KEY_DTYPES:
                    raise TypeError("warmup: dtype %s is not a key type" % dt)
                codes.append(KEY_DTYPES[dt])
        arr = (ctypes.c_int * len(codes))(*codes)
        flags = (1 if pairs else 0) | (2 if argsort else 0)
        with self._lock:
            self._check(_warmup(self._live(), arr, len(codes), flags))

    def close(self):
        """Releases the context (also at garbage collection)."""
        with self._lock:
            if self._ctx is not None:
                _release(self._ctx)
                self._ctx = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            if self._ctx is not None:
                _release(self._ctx)
                self._ctx = None
        except Exception:
            pass

    def _check(self, st):
        if st != 0:
            raise Error(st, _last_error(self._ctx).decode(errors="replace"))

    def _live(self):
        if self._ctx is None:
            raise ValueError("the clsort Context is closed")
        return self._ctx

    @property
    def device(self):
        """The context's device, as a dict (see devices())."""
        with self._lock:
            d = _DeviceInfo()
            self._check(_device_info(self._live(), ctypes.byref(d)))
            return _info_dict(d)

    @property
    def tuning(self):
        """The current tuning as a spec string."""
        with self._lock:
            ctx = self._live()
            need = _get_tuning(ctx, None, 0)
            buf = ctypes.create_string_buffer(need + 1)
            _get_tuning(ctx, buf, need + 1)
            return buf.value.decode()

    def set_tuning(self, spec):
        """Applies a tuning spec on top of the current one (None or "":
        back to the device's tuned values)."""
        with self._lock:
            self._check(_set_tuning(self._live(), _text(spec, "spec")))

    def sort(self, a, axis=-1, kind=None, *, descending=False, bits=None, algorithm="auto",
             radix_bits=0):
        """A sorted copy of a, as np.sort(a, axis, kind) gives it: along
        axis (-1: each row of the last axis sorted on its own; None: the
        flattened array), stably whatever kind says, NaNs last. a may be any
        array of a key dtype (or bool), in any layout or byte order: the copy
        NumPy's semantics require is the only one made. descending: largest
        first, still stable; bits=(b, e): sort on bits [b, e) of the key's
        order-preserving image only."""
        a = _keys_input(a, "a")
        _check_kind(kind)
        o = _options(descending, bits, algorithm, radix_bits)
        if axis is not None:
            _normalize_axis(axis, a.ndim)
        src = _key_view(a)
        if src is not None and src.ndim == 1 and src.flags.c_contiguous and src.size > 1:
            # one array: the library writes the sorted copy (no pass of
            # NumPy's over the keys first)
            out = np.empty_like(src)
            with self._lock:
                self._check(_sort_keys_copy(self._live(), KEY_DTYPES[src.dtype], _ptr(src),
                                            _ptr(out), src.size, ctypes.byref(o)))
            return out.view(np.bool_) if a.dtype == np.bool_ else out
        if axis is None:
            work = _native_copy(a.reshape(-1))
            axis = 0
        else:
            axis = _normalize_axis(axis, a.ndim)
            work = _native_copy(np.moveaxis(a, axis, -1))
        self._sort_rows(work, o)
        if a.dtype == np.bool_:
            work = work.view(np.bool_)
        return np.moveaxis(work, -1, axis) if work.ndim > 1 else work

    def sort_inplace(self, a, axis=-1, kind=None, *, descending=False, bits=None,
                     algorithm="auto", radix_bits=0):
        """Sorts a in place along axis, as a.sort(axis, kind) does; returns
        None. A C-contiguous array of native byte order sorted along its last
        axis is sorted where it lies (no copy); any other layout goes through
        one sorted copy written back."""
        _array(a, "a", None, ndim1=False, contiguous=False)
        if _sort_dtype(a.dtype) is None:
            raise TypeError("a: dtype %s is not supported (supported: %s, bool)"
                            % (a.dtype, ", ".join(str(d) for d in KEY_DTYPES)))
        _check_kind(kind)
        o = _options(descending, bits, algorithm, radix_bits)
        axis = _normalize_axis(axis, a.ndim)
        view = _key_view(a)
        if view is not None and a.flags.c_contiguous and axis == a.ndim - 1:
            self._sort_rows(view, o)
            return None
        work = _native_copy(np.moveaxis(a, axis, -1))
        self._sort_rows(work, o)
        np.moveaxis(a, axis, -1)[...] = work.view(np.bool_) if a.dtype == np.bool_ else work
        return None

    def _sort_rows(self, work, o):
        """Sorts a C-contiguous native key array in place: each row of its
        last axis on its own (one segmented sort)."""
        if work.size < 2 or work.shape[-1] < 2:
            return
        length = work.shape[-1]
        code = KEY_DTYPES[work.dtype]
        with self._lock:
            if work.size == length:
                self._check(_sort_keys(self._live(), code, _ptr(work), work.size,
                                       ctypes.byref(o)))
            else:
                seg = _Segments()
                seg.count, seg.length = work.size // length, length
                self._check(_sort_segments(self._live(), code, _ptr(work), work.size,
                                           ctypes.byref(seg), ctypes.byref(o)))

    def sort_pairs(self, keys, values, *, descending=False, bits=None, algorithm="auto",
                   radix_bits=0):
        """Sorts keys in place and moves the rows of values (values[i] is the
        row of keys[i]; any dtype and row shape) with them; returns both."""
        _array(keys, "keys", KEY_DTYPES)
        row = _rows(values, keys.size)
        o = _options(descending, bits, algorithm, radix_bits)
        with self._lock:
            self._check(_sort_pairs(self._live(), KEY_DTYPES[keys.dtype], _ptr(keys),
                                    _ptr(values), row, keys.size, ctypes.byref(o)))
        return keys, values

    def argsort(self, a, axis=-1, kind=None, *, descending=False, bits=None, algorithm="auto",
                radix_bits=0, index_dtype=np.intp):
        """The stable sorting permutation of a along axis, as
        np.argsort(a, axis, kind) gives it (a is not changed): a new array of
        index_dtype (np.intp by default, as NumPy; uint32 and uint64 too;
        uint32 moves fewer bytes)."""
        a = _keys_input(a, "a")
        _check_kind(kind)
        index_dtype = np.dtype(index_dtype)
        if index_dtype not in (np.dtype(np.uint32), np.dtype(np.uint64), np.dtype(np.int64)):
            raise TypeError("index_dtype must be uint32, uint64 or int64 (intp), not %s"
                            % index_dtype)
        o = _options(descending, bits, algorithm, radix_bits)
        if axis is None:
            a, axis = a.reshape(-1), 0
        axis = _normalize_axis(axis, a.ndim)
        lib_dtype = np.dtype(np.uint32) if index_dtype == np.uint32 else np.dtype(np.uint64)
        length = a.shape[axis] if a.ndim else 1
        if lib_dtype == np.uint32 and length >= (1 << 32):
            raise ValueError("%d keys need 64-bit indices" % length)
        if a.ndim == 1:
            keys = _key_view(a)
            if keys is None or not keys.flags.c_contiguous:
                keys = _native_copy(a)
            out = np.empty(a.size, dtype=lib_dtype)
            if a.size:
                with self._lock:
                    self._check(_argsort(self._live(), KEY_DTYPES[keys.dtype], _ptr(keys),
                                         keys.size, KEY_DTYPES[lib_dtype], _ptr(out),
                                         ctypes.byref(o)))
            return out.view(index_dtype)
        # rows: the keys (a copy) carry their row positions through one
        # segmented sort
        keys = _native_copy(np.moveaxis(a, axis, -1))
        idx = np.empty(keys.shape, dtype=lib_dtype)
        idx[...] = np.arange(length, dtype=lib_dtype)
        if keys.size >= 2 and length >= 2:
            seg = _Segments()
            seg.count, seg.length = keys.size // length, length
            with self._lock:
                self._check(_sort_segments_pairs(self._live(), KEY_DTYPES[keys.dtype],
                                                 _ptr(keys), _ptr(idx), lib_dtype.itemsize,
                                                 keys.size, ctypes.byref(seg), ctypes.byref(o)))
        return np.moveaxis(idx.view(index_dtype), -1, axis)

    def sort_segments(self, keys, values=None, *, length=None, offsets=None, descending=False,
                      bits=None, algorithm="auto", radix_bits=0):
        """Sorts each segment of keys in place, on its own (and the rows of
        values with them when given). Segments: length=L (n // L segments of
        L keys from the start) or offsets (CSR: segment s is
        [offsets[s], offsets[s+1]), non-decreasing, at most n; may be
        empty). Keys outside every segment stay as they are. Returns keys, or
        (keys, values)."""
        _array(keys, "keys", KEY_DTYPES)
        seg = _Segments()
        if (length is None) == (offsets is None):
            raise ValueError("give either length or offsets")
        if length is not None:
            length = _uint(length, "length", lo=1, hi=2**64 - 1)
            seg.count, seg.length = keys.size // length, length
            offs = None
        else:
            offs = self._offsets(offsets)
            seg.count = offs.size - 1
            seg.offsets = offs.ctypes.data
        o = _options(descending, bits, algorithm, radix_bits)
        if values is None:
            with self._lock:
                self._check(_sort_segments(self._live(), KEY_DTYPES[keys.dtype], _ptr(keys),
                                           keys.size, ctypes.byref(seg), ctypes.byref(o)))
            return keys
        row = _rows(values, keys.size)
        with self._lock:
            self._check(_sort_segments_pairs(self._live(), KEY_DTYPES[keys.dtype], _ptr(keys),
                                             _ptr(values), row, keys.size, ctypes.byref(seg),
                                             ctypes.byref(o)))
        return keys, values

    @staticmethod
    def _offsets(offsets):
        """CSR offsets as a contiguous uint64 array (the library checks them
        against n and their order)."""
        if isinstance(offsets, np.ndarray) and offsets.dtype.kind in "ui" and offsets.ndim == 1:
            if offsets.dtype.kind == "i" and offsets.size and offsets.min() < 0:
                raise ValueError("offsets must not be negative")
            offs = np.ascontiguousarray(offsets, dtype=np.uint64)
        else:
            if isinstance(offsets, np.ndarray) and offsets.ndim != 1:
                raise ValueError("offsets must be one-dimensional")
            try:
                vals = [_uint(v, "an offset", hi=2**64 - 1) for v in offsets]
            except TypeError as e:
                raise TypeError("offsets must be integers: %s" % e) from None
            offs = np.array(vals, dtype=np.uint64)
        if offs.size < 1:
            raise ValueError("offsets must have count + 1 entries (at least one)")
        return offs

    def scan(self, a, *, inclusive=False, out=None):
        """Prefix sums of a 1-D array (uint32/64, int32/64, float32/64): a
        new array, or out (which may be a itself). out[i] = a[0] + ... +
        a[i-1] (inclusive: + a[i]); integer sums wrap around."""
        _array(a, "a", SCAN_DTYPES, writable=False)
        if out is None:
            out = np.empty_like(a)
        _array(out, "out", SCAN_DTYPES)
        if out.dtype != a.dtype or out.size != a.size:
            raise ValueError("out must have a's dtype and length")
        with self._lock:
            self._check(_scan(self._live(), KEY_DTYPES[a.dtype], _ptr(a), _ptr(out), a.size,
                              1 if inclusive else 0))
        return out


# ----------------------------------------------------- the default context

_default = None
_default_lock = threading.Lock()


def default_context():
    """The context the module-level functions use (created on first use)."""
    global _default
    with _default_lock:
        if _default is None or _default._ctx is None:  # none yet, or closed
            _default = Context()
        return _default


def _close_all():
    """At exit: every context released, so that a kernel build still
    running in the background stops at its next step before the interpreter
    and the driver go (the host tier, docs/USAGE.md)."""
    with _default_lock:
        for c in list(_contexts):
            c.close()


atexit.register(_close_all)


def warmup(dtypes=None, **kw):
    """Context.warmup on the default context."""
    return default_context().warmup(dtypes, **kw)


def clear_cache(cache_dir=None, *, driver=True):
    """Empties clsort's cache folder (None: the default; saved tunings
    stay) and, with driver, PoCL's kernel cache (which other programs
    share). Call it with no Context in use."""
    st = _cache_clear(_text(cache_dir, "cache_dir"), 1 if driver else 0)
    if st != 0:
        raise Error(st, _last_error(None).decode(errors="replace"))


def sort(a, axis=-1, kind=None, **kw):
    """Context.sort on the default context: a sorted copy, as np.sort."""
    return default_context().sort(a, axis, kind, **kw)


def sort_inplace(a, axis=-1, kind=None, **kw):
    """Context.sort_inplace on the default context: as ndarray.sort."""
    return default_context().sort_inplace(a, axis, kind, **kw)


def sort_pairs(keys, values, **kw):
    """Context.sort_pairs on the default context."""
    return default_context().sort_pairs(keys, values, **kw)


def argsort(a, axis=-1, kind=None, **kw):
    """Context.argsort on the default context, as np.argsort."""
    return default_context().argsort(a, axis, kind, **kw)


def sort_segments(keys, values=None, **kw):
    """Context.sort_segments on the default context."""
    return default_context().sort_segments(keys, values, **kw)


def scan(a, **kw):
    """Context.scan on the default context."""
    return default_context().scan(a, **kw)
