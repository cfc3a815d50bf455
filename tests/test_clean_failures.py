"""Messages, not tracebacks: inputs the audit cannot use are named, with exit code 2 and nothing written."""

from __future__ import annotations

import pytest

from compendium import cli

GOOD = "sentence_id,system,annotator,rating\n" + "".join(
    f"{i},{s},{a},{(i + len(s) + len(a)) % 5 + 1}\n" for i in range(1, 5) for s in ("sa", "sbb") for a in ("x", "yy"))


@pytest.mark.parametrize("make, message", [
    (lambda tmp: tmp, "is a directory; give the table's file"),
    (lambda tmp: "/dev/null", "is not a regular file (a device or a pipe)"),
    (lambda tmp: (tmp / "r.csv").write_text(GOOD.replace(",x,1\n", ",x,1e308\n", 1)) and tmp / "r.csv",
     "column 'rating': ratings too large to compute with on 1 line: line "),
])
def test_unusable_ratings_files_get_a_message_and_exit_code_2(tmp_path, capsys, make, message):
    (tmp_path / "r.csv").write_text(GOOD)
    given = make(tmp_path)
    out = tmp_path / "report"
    assert cli.main(["audit", str(given), "--format", "json", "--n-boot", "20", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and not out.exists()
