"""What scripts/loadbench and scripts/bench-report share: matplotlib in a venv.

`reexec()` makes sure `.loadbench/venv` (git-ignored) exists with matplotlib,
then runs the calling script again with that venv's Python, once. `pyplot()`
is matplotlib's pyplot on the file-only Agg backend, with the house style of
both plots.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".loadbench" / "venv"
REQUIREMENT = "matplotlib>=3.8,<4"
MARK = "MRTR_GUARD_PLOTENV"


def _has_matplotlib(python):
    probe = subprocess.run([str(python), "-c", "import matplotlib"], capture_output=True)
    return probe.returncode == 0


def reexec():
    """Returns at once inside the venv; else prepares it and exec()s into it."""
    if os.environ.get(MARK) == str(VENV):
        return
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"plotenv: creating {VENV}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    if not _has_matplotlib(python):
        print(f"plotenv: installing {REQUIREMENT} into {VENV}", file=sys.stderr)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", REQUIREMENT],
                       check=True)
    os.environ[MARK] = str(VENV)
    os.execv(str(python), [str(python), sys.argv[0], *sys.argv[1:]])


def pyplot():
    """matplotlib.pyplot on the Agg backend, with the plots' shared style."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "figure.dpi": 110,
        "savefig.dpi": 110,
        "font.size": 10,
        "axes.titlesize": 11,
        "axes.titleweight": "bold",
        "axes.labelpad": 8,
        "axes.grid": True,
        "axes.axisbelow": True,
        "grid.color": "#dddddd",
        "axes.spines.top": False,
        "axes.spines.right": False,
        "legend.frameon": False,
    })
    return plt
