"""The build: how chapters run and how the book, its sweeps and its benchmarks are made.

Building the book (:mod:`~compendium.build.pipeline`) by running chapters
(:mod:`~compendium.build.runner`) in kernels forked from a process with the
libraries imported (:mod:`~compendium.build.kernels`), each chapter's declared
parameters (:mod:`~compendium.build.parameters`), seed sweeps
(:mod:`~compendium.build.sweep`), re-runs of one chapter elsewhere
(:mod:`~compendium.build.rerun`) and the benchmarks of speed
(:mod:`~compendium.build.bench`, :mod:`~compendium.build.bench_scale`).

The wing's rule: it never changes a number. It runs the chapters, which call
the wings below, and gathers what they record; it may import any wing but the
command line.
"""
