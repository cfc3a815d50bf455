"""How the book and the audit's report write a number: one formatter for every table and sentence.

Light (numpy and pandas only), so that the report ``compendium audit`` writes without Jupyter formats numbers as the
book does (:mod:`compendium.book.report` re-exports these names for the chapters).
"""

from __future__ import annotations

__all__ = ["format_number", "format_p"]


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _scientific(x: float) -> str:
    """``1.04 × 10⁻²⁵``: a number too small or too large for decimals, three significant digits, no e-notation."""
    mantissa, exponent = f"{x:.2e}".split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def format_p(value) -> str:
    """A p value as the book shows it: ``"0.012"``, ``"< 0.001"``, ``"< 0.0001"``; never ``0`` or ``0.0000``.

    Examples
    --------
    >>> [format_p(v) for v in (0.0123, 0.5, 0.00042, 1e-35, 0.0, 1.0, None)]
    ['0.012', '0.500', '< 0.001', '< 0.0001', '< 0.0001', '1.000', '']
    """
    import math

    try:
        x = float(value)
    except (TypeError, ValueError):
        return "" if value is None else str(value)
    if math.isnan(x):
        return ""
    if x < 1e-4:
        return "< 0.0001"
    if x < 1e-3:
        return "< 0.001"
    return f"{x:.3f}"


def format_number(value, *, separators: bool = True) -> str:
    """A number as the book shows it: one formatter for every table and sentence.

    Whole numbers (counts) show as integers with thousands separators;
    other numbers show 3 significant digits (1,000 or more rounded to an
    integer with separators); numbers below 0.0001 or at 10^15 and above show
    as ``1.04 × 10⁻²⁵``, never in e-notation. Missing values (None, NaN) show
    as an empty string; text is returned as it is. ``separators=False``
    leaves out the thousands separators (seeds, years).

    Examples
    --------
    >>> [format_number(v) for v in (19.0, 0.0101234, 3.14159, 1234.5, None, float("nan"), 2.5e-7, 4046.0, 17100.0)]
    ['19', '0.0101', '3.14', '1,234', '', '', '2.50 × 10⁻⁷', '4,046', '17,100']
    >>> [format_number(v) for v in (-0.0235347, 0.000994152, 1.03587e-25, 2024, 0.0)]
    ['-0.0235', '0.000994', '1.04 × 10⁻²⁵', '2,024', '0']
    """
    import math

    import numpy as np

    sep = "," if separators else ""
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if bool(value) else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):{sep}}"
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if math.isnan(x):
            return ""
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        if x == 0:
            return "0"
        if abs(x) >= 1e15 or abs(x) < 1e-4:
            return _scientific(x)
        if x.is_integer():
            return f"{int(x):{sep}}"
        if abs(x) >= 1000:
            return f"{x:{sep}.0f}"
        x = float(f"{x:.3g}")  # round first, so that 9.9996 shows as 10.0, not 10.00
        if abs(x) >= 1000:
            return f"{x:{sep}.0f}"
        digits = max(0, 2 - math.floor(math.log10(abs(x))))
        return f"{x:.{digits}f}"
    if isinstance(value, str):
        return value
    try:
        import pandas as pd

        if pd.isna(value):
            return ""
    except (TypeError, ValueError):
        pass
    return str(value)
