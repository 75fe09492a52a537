"""The ttft_tpot package's C extension, compiled from the C library's three headers (ttft_tpot.h the core,
ttft_tpot_serve.h the serving layer, ttft_tpot_tools.h, which includes both, the report tool's HTML page
and comparison too): found in the source tree two directories up, or in csrc/ of an sdist (which gets
copies of them)."""
import os
import re
import shutil

from setuptools import Extension, setup
from setuptools.command.sdist import sdist

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.normpath(os.path.join(HERE, "..", ".."))
# what the extension compiles besides csrc/_core.c, from the source tree's root
SHARED = ["include/ttft_tpot.h", "include/ttft_tpot_serve.h", "include/ttft_tpot_tools.h"]


def shared_dirs():
    """Where the headers are: TTFT_TPOT_INCLUDE_DIR (an installed copy, as a distribution builds
    against), else the tree's include/, else csrc/ (an sdist's copies)."""
    if os.environ.get("TTFT_TPOT_INCLUDE_DIR"):
        return [os.environ["TTFT_TPOT_INCLUDE_DIR"]]
    if os.path.exists(os.path.join(TREE, SHARED[0])):
        return [os.path.join(TREE, "include")]
    return [os.path.join(HERE, "csrc")]


def version():
    """The header's TTFT_TPOT_VERSION."""
    with open(os.path.join(shared_dirs()[0], "ttft_tpot.h"), encoding="utf-8") as f:
        return re.search(r'^#define TTFT_TPOT_VERSION "([0-9.]+)"', f.read(), re.M).group(1)


class SdistWithSources(sdist):
    """An sdist builds away from the tree: it carries the shared sources in csrc/."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        for rel in SHARED:
            shutil.copy(os.path.join(TREE, rel), os.path.join(base_dir, "csrc", os.path.basename(rel)))
        shutil.copy(os.path.join(TREE, "LICENSE"), os.path.join(base_dir, "LICENSE"))


setup(
    version=version(),
    license="MIT",
    ext_modules=[Extension("ttft_tpot._core", ["csrc/_core.c"], include_dirs=shared_dirs(), libraries=["m"],
                           depends=[os.path.join(d, os.path.basename(f)) for f in SHARED for d in shared_dirs()
                                    if os.path.exists(os.path.join(d, os.path.basename(f)))])],
    cmdclass={"sdist": SdistWithSources},
)
