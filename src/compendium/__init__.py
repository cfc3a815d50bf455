"""Research compendium for "Two Emojis of Difference: What Multilingual Affective Generation Benchmarks Actually
Measure".

The package is built in wings. Each wing imports only from the wings below it
(``tests/test_layout.py`` reads every import and fails on an upward import or
a circle):

=====================  =================================================================
``compendium.cli``     the command line, on top
``compendium.build``   how the book is made: the pipeline, the chapter runner and its
                       kernels, chapter parameters, sweeps, re-runs, bench. It never
                       changes a number.
``compendium.book``    what the pages show: verdict boxes, report, figures, explorer,
                       system cards, the real benchmarks' audit tables, references.
                       It never changes a number.
``compendium.audit``   the audit of a human rating study, its checklist and its report:
                       the tool users install
``compendium.analyses``  the paper's sections: emoji segmentation, corpus, length, EAD,
                       geometry, cost, leakage, and their real-data twins; the claims
                       ledger, the paper's self-checks and the sounder analyses
``compendium.simulate``  every simulator: the benchmark, crossed and incomplete panels,
                       toy studies
``compendium.stats``   statistics that know nothing of the paper: agreement and ICC,
                       G theory by EMS and by REML, mixed models, multiplicity, panels,
                       the decoder. Each is tested against an outside reference.
``compendium.data``    everything that reads files: the benchmark's loader and schema,
                       judgements, real data, the result cache, errors, paths. Bad input
                       is rejected with the file, the column and the rows.
=====================  =================================================================

``stats`` and ``data`` are the bottom and do not import each other.
"""
