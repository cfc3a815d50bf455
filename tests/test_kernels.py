"""Forked kernels (compendium.build.kernels): the same as fresh ones, started from a process with the libraries
imported.

A probe notebook draws a matplotlib figure (the inline backend's PNG), shows a widget (ipywidgets registers with
the running IPython when imported into it), and prints what a kernel takes from its start: working directory,
``sys.path``, ``sys.argv``, the environment, the matplotlib backend and the IPython kernel's parent process. Run
forked and fresh, every output is the same; only the marker cell differs (scikit-learn is in ``sys.modules`` of a
forked kernel before anything imported it).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import nbformat
import pytest

from compendium.build import kernels, runner

PROBE = '''# %% tags=["parameters"]
seed = 0

# %%
import json, os, sys
import matplotlib
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(2, 1.5))
ax.plot([0, 1, 4, 9, 16])
plt.show()

# %%
import ipywidgets
ipywidgets.IntSlider(value=3)

# %%
from ipykernel.kernelapp import IPKernelApp
app = IPKernelApp.instance()
print(json.dumps({
    "cwd": os.getcwd(),
    "path": sys.path,
    "argv0": os.path.basename(sys.argv[0]),
    "env": {k: v for k, v in os.environ.items() if k not in ("JPY_PARENT_PID", "JPY_SESSION_NAME")},
    "backend": matplotlib.get_backend(),
    "parent_handle_is_parent": app.parent_handle == int(os.environ["JPY_PARENT_PID"]),
    "hash": hash("compendium"),
}, sort_keys=True))

# %%
print("marker", "sklearn" in sys.modules)
'''


def _outputs(path):
    """Every code cell's outputs, the widget's random model id and the kernel's pid made neutral."""
    notebook = nbformat.read(path, as_version=4)
    cells = [json.dumps(c.outputs, sort_keys=True) for c in notebook.cells if c.cell_type == "code"]
    return [re.sub(r'"model_id": "[0-9a-f]{32}"', '"model_id": "X"', c) for c in cells]


def _facts(outputs) -> dict:
    """What the probe's kernel printed about its start."""
    return json.loads(json.loads(outputs[3])[0]["text"])


@pytest.fixture
def probe(tmp_path):
    source = tmp_path / "probe.py"
    source.write_text(PROBE, encoding="utf-8")
    return source


MARKER = '''# %% tags=["parameters"]
seed = 0

# %%
import sys
import matplotlib
print("marker", "sklearn" in sys.modules, matplotlib.get_backend())
'''


@pytest.fixture(scope="module")
def own_server():
    """A kernel server of this module's own: none runs at the start (the first chapter starts one). The one
    left at the end serves the process's next kernels, or is replaced by the first whose environment differs
    (``kernels.server_socket``): stopping it would only make the next chapter import the libraries again."""
    kernels.stop_server()
    yield


def test_a_forked_kernel_runs_a_notebook_as_a_fresh_one_does(probe, tmp_path, own_server):
    a = _outputs(runner.execute(probe, tmp_path / "run").path)
    b = _outputs(runner.execute(probe, tmp_path / "run", fork_kernel=False).path)  # the same directory
    assert "image/png" in a[1] and "application/vnd.jupyter.widget-view+json" in a[2]
    assert a[:-1] == b[:-1]
    assert "marker True" in a[-1] and "marker False" in b[-1]
    facts = _facts(a)
    assert facts["parent_handle_is_parent"] and facts["argv0"] == "ipykernel_launcher.py"
    assert facts["cwd"] == str(tmp_path / "run") and facts["env"]["PYTHONHASHSEED"] == "0"


def test_a_kernel_that_would_differ_from_a_fresh_one_starts_fresh(tmp_path, own_server):
    source = tmp_path / "marker.py"
    source.write_text(MARKER, encoding="utf-8")
    assert "marker True" in _outputs(runner.execute(source, tmp_path / "same").path)[-1]
    (tmp_path / "rc").mkdir()  # matplotlib reads a matplotlibrc in the working directory on import
    (tmp_path / "rc" / "matplotlibrc").write_text("lines.linewidth: 3\n", encoding="utf-8")
    assert "marker False" in _outputs(runner.execute(source, tmp_path / "rc").path)[-1]
    # A launcher whose environment differs from the server's in a variable read on import becomes the kernel
    # itself, started the ordinary way (the same process).
    launcher, kernel = _launch(tmp_path, {**runner.kernel_environment(), "MPLBACKEND": "agg"})
    assert kernel == launcher.pid
    os.killpg(launcher.pid, signal.SIGKILL)
    launcher.wait()


def test_forking_can_be_switched_off(monkeypatch):
    assert kernels.server_socket({**runner.kernel_environment(), kernels.ENABLE_ENV: "0"}) is None
    monkeypatch.setenv(kernels.ENABLE_ENV, "0")
    assert kernels.server_socket(runner.kernel_environment()) is None


def test_a_pools_workers_fork_their_kernels_from_the_parents_server(own_server):
    """``runner.process_pool`` starts this process's server and its workers use it (one server's imports, not one
    per worker); a worker asked for a kernel with another environment starts a server of its own instead."""
    env = runner.kernel_environment()
    with runner.process_pool(2) as pool:
        mine = kernels.server_socket(env)
        found = [pool.submit(kernels.server_socket, env) for _ in range(4)]
        other = pool.submit(kernels.server_socket, {**env, "MPLBACKEND": "agg"}).result(timeout=120)
        assert {f.result(timeout=120) for f in found} == {mine}
    assert mine is not None and os.path.exists(mine)
    assert other is not None and other != mine


def test_differences_ignore_only_what_is_read_at_run_time():
    server = {"PATH": "/bin", "PYTHONHASHSEED": "0"}
    assert kernels.differences({**server, "JPY_PARENT_PID": "12", "COMPENDIUM_CACHE": "/c",
                                "PYTEST_CURRENT_TEST": "t"}, server) == []
    assert kernels.differences({"PATH": "/bin", "PYTHONHASHSEED": "1", "MPLBACKEND": "agg"}, server) == [
        "MPLBACKEND", "PYTHONHASHSEED"]
    assert kernels.differences({"PATH": "/bin"}, server) == ["PYTHONHASHSEED"]


def test_a_kernel_ends_with_its_launcher_and_passes_on_signals(tmp_path, own_server):
    """The launcher stands for the kernel: killed, the kernel ends too; a signal it gets reaches the kernel,
    and it exits with the kernel's status."""
    def launch():
        launcher, kernel = _launch(tmp_path, runner.kernel_environment())
        assert kernel != launcher.pid  # forked by the server, not the launcher become a kernel
        return launcher, kernel

    launcher, kernel = launch()
    os.killpg(launcher.pid, signal.SIGKILL)  # as jupyter_client kills a kernel: its launcher's process group
    launcher.wait()
    for _ in range(500):
        if not kernels._alive(kernel):
            break
        time.sleep(0.01)
    assert not kernels._alive(kernel)

    launcher, kernel = launch()
    os.killpg(launcher.pid, signal.SIGTERM)
    assert launcher.wait(timeout=30) == 128 + signal.SIGTERM
    assert not kernels._alive(kernel)


def _launch(directory, env):
    """Run the launcher as jupyter_client would (its own session), with ``env``; the launcher and the kernel's pid."""
    socket_path = kernels.server_socket(runner.kernel_environment())
    connection = directory / f"kernel-{time.monotonic_ns()}.json"
    launcher = subprocess.Popen([sys.executable, "-m", "compendium.build.kernels", "launch", socket_path,
                                 "-f", str(connection)], env=env, cwd=directory,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    for _ in range(3000):  # the kernel writes its connection file once it runs
        if connection.exists() and connection.stat().st_size:
            break
        time.sleep(0.01)
    return launcher, _kernel_pid(connection)


def _kernel_pid(connection) -> int:
    """The pid of the kernel listening at ``connection``, asked over Jupyter's protocol."""
    from jupyter_client import BlockingKernelClient

    client = BlockingKernelClient(connection_file=str(connection))
    client.load_connection_file()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        reply = client.execute_interactive("import os; __pid = os.getpid()", user_expressions={"pid": "__pid"},
                                           timeout=60)
        return int(reply["content"]["user_expressions"]["pid"]["data"]["text/plain"])
    finally:
        client.stop_channels()


def test_nbvals_kernels_are_forked_under_make_test(tmp_path, monkeypatch, own_server):
    """``make test`` runs nbval with ``--nbval-current-env``; tests/conftest.py then has its kernels forked."""
    import conftest
    import ipykernel.kernelspec
    from nbval.kernel import CURRENT_ENV_KERNEL_NAME, RunningKernel

    monkeypatch.setattr(ipykernel.kernelspec, "get_kernel_dict", ipykernel.kernelspec.get_kernel_dict)  # put back after
    conftest.fork_nbval_kernels()
    assert ipykernel.kernelspec.get_kernel_dict()["argv"][1:4] == ["-m", "compendium.build.kernels", "launch"]
    kernel = RunningKernel(CURRENT_ENV_KERNEL_NAME, cwd=str(tmp_path))
    try:
        msg_id = kernel.kc.execute("import os, sys; print(os.getpid(), 'sklearn' in sys.modules, os.getcwd())")
        while True:
            message = kernel.kc.get_iopub_msg(timeout=30)
            if message["parent_header"].get("msg_id") == msg_id and message["msg_type"] == "stream":
                break
        pid, preloaded, cwd = message["content"]["text"].split()
        assert int(pid) != kernel.km.provisioner.process.pid  # forked from the server, not the launcher itself
        assert preloaded == "True" and cwd == str(tmp_path)
    finally:
        kernel.stop()
