"""The independent references the tests check the pipeline against.

Agreement of a simulated number with the paper says nothing about whether the
pipeline computes the right quantity: the tests do, by checking each statistic
against something that is not itself. This table lists those references; the
appendix "How this book was built" shows it, and ``tests/test_references.py``
checks that each test file named here really uses the reference (the
``marker`` is a string the file contains).
"""

from __future__ import annotations

import pandas as pd

#: ``(reference, what it checks, test file, marker the test file contains)``.
REFERENCES = (
    ("Krippendorff (2011), worked examples (4 coders x 12 units; 3 coders x 15 units)",
     "Krippendorff's alpha, nominal to ratio, with missing values", "tests/test_reliability.py",
     "Krippendorff (2011)"),
    ("krippendorff package (krippendorff.alpha)", "alpha and its bootstrap on random data", "tests/test_reliability.py",
     "krippendorff.alpha"),
    ("Shrout & Fleiss (1979), Table 2 and its published ICCs", "the six intraclass correlations",
     "tests/test_reliability.py", "Shrout and Fleiss (1979)"),
    ("pingouin (intraclass_corr)", "ICCs and their confidence intervals on random data", "tests/test_reliability.py",
     "pg.intraclass_corr"),
    ("statsmodels (ols + anova_lm)", "the three-way ANOVA of the crossed design", "tests/test_reliability.py",
     "anova_lm"),
    ("Expected-mean-square algebra (Cornfield-Tukey rule; Brennan 2001)",
     "variance components, G, raters needed; the unbiased system variance", "tests/test_reliability.py",
     "random-model EMS"),
    ("statsmodels (ols with item dummies)", "the per-annotator length slopes, their SEs and p values",
     "tests/test_length.py", "smf.ols"),
    ("statsmodels (proportion_confint, Wilson)", "the Wilson interval of the paper's win rate",
     "tests/test_paper_checks.py", "wilson_interval"),
    ("scikit-learn (LogisticRegression, StratifiedKFold, f1_score)", "emoji-affect decodability (macro-F1 under CV)",
     "tests/test_decodability.py", "from sklearn.linear_model import LogisticRegression"),
    ("scikit-learn (TfidfVectorizer)", "sublinear TF-IDF of emoji graphemes", "tests/test_emoji.py",
     "TfidfVectorizer"),
    ("emoji package (EMOJI_DATA)", "grapheme segmentation of emoji sequences", "tests/test_emoji.py",
     "from emoji import EMOJI_DATA"),
    ("Brute-force mean cosine over all pairs", "Ethayarajh's anisotropy", "tests/test_geometry.py",
     "brute-force mean of the cosines"),
    ("scipy.stats (t, F, pearsonr, spearmanr, kendalltau, ttest_rel)",
     "p values, correlations and the paper's own arithmetic", "tests/test_paper_checks.py", "stats.ttest_rel"),
)


def references() -> pd.DataFrame:
    """The references as a table: ``reference, checks, test_file, marker``."""
    return pd.DataFrame(list(REFERENCES), columns=["reference", "checks", "test_file", "marker"])
