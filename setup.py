"""setup.py - builds libclsort with CMake (the library alone, Release) and
puts it inside the clsort package, where python/clsort/__init__.py looks
first. The metadata is in pyproject.toml."""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        tmp = os.path.join(os.path.abspath(self.get_finalized_command("build").build_temp),
                           "libclsort")
        subprocess.check_call(["cmake", "-S", HERE, "-B", tmp, "-DCMAKE_BUILD_TYPE=Release",
                               "-DCLSORT_BUILD_TOOLS=OFF", "-DCLSORT_BUILD_TESTS=OFF",
                               "-DCLSORT_BUILD_EXAMPLES=OFF"])
        subprocess.check_call(["cmake", "--build", tmp, "--target", "clsort_shared", "-j",
                               str(os.cpu_count() or 2)])
        lib = os.path.realpath(os.path.join(tmp, "libclsort.so"))
        dest = os.path.join(self.build_lib, "clsort", "libclsort.so")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(lib, dest)


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: it is platform-specific."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
