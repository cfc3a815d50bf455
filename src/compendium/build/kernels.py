"""Chapter kernels forked from a process that has already imported the libraries.

A chapter's kernel spends one to two and a half seconds importing numpy, pandas,
SciPy, matplotlib, scikit-learn and statsmodels before its first line of
analysis, and a build starts twenty-one kernels. A *kernel server* imports them once; each
kernel is then a fork of it, started in a fraction of a second. This is the
preloading fork server of :mod:`multiprocessing` (``set_forkserver_preload``),
applied to Jupyter kernels.

How a kernel starts
    The kernel manager (:func:`compendium.build.runner._kernel_manager_class`)
    runs ``python -m compendium.build.kernels launch SOCKET -f CONNECTION_FILE``
    in place of ``python -m ipykernel_launcher -f CONNECTION_FILE``. The
    launcher hands the server its standard streams, working directory,
    environment and arguments; the server forks, and the child becomes the
    ipykernel a fresh ``ipykernel_launcher`` would have become. The launcher
    stays as the process jupyter_client knows: it passes on the signals it gets
    (an interrupt, a termination), exits with the kernel's exit status, and if
    it is killed the kernel ends too (it watches a pipe whose other end only the
    launcher holds).

When a kernel starts the ordinary way
    The launcher replaces itself with ``python -m ipykernel_launcher`` (same
    process, same arguments) when there is no server, when the server is gone,
    or when the server refuses because the kernel would not be the same as a
    fresh one:

    * its environment differs from the server's in a variable other than those
      read only at run time (:data:`RUNTIME_ONLY`, and the ``COMPENDIUM_*``
      variables, which the package reads when called; of the package, the
      server imports only this module);
    * its working directory holds a ``matplotlibrc``, which matplotlib would
      have read on import.

Why the result is the same as a fresh kernel's
    The server imports only third-party libraries (:data:`PRELOAD`), in the
    kernel's environment, with matplotlib's backend named as ipykernel names it
    (``MPLBACKEND``) and the launch directory off ``sys.path`` as
    ``ipykernel_launcher`` takes it off. It imports nothing of Jupyter's or
    IPython's (:data:`KERNEL_SIDE`, checked): each kernel imports those in its
    own environment. It starts no thread (checked) and opens no ZeroMQ context
    or event loop before forking. ``tests/test_kernels.py`` runs a notebook
    both ways (a figure, a widget, the kernel's path, arguments, environment,
    backend, hash seed and parent process) and compares every output; every
    chapter's outputs were compared the same way when this was written.

:func:`server_socket` starts one server per process that runs chapters, on first
use, and stops it when that process ends (the server also ends when its parent
does: it watches its standard input). A pool of chapter workers uses its parent's
server (:func:`share`, from :func:`compendium.build.runner.process_pool`): one
server's imports instead of one per worker.
"""

from __future__ import annotations

import json
import os
import sys

#: Set to ``0`` to start every kernel the ordinary way.
ENABLE_ENV = "COMPENDIUM_FORK_KERNELS"
#: Modules the server imports before it forks: the libraries the chapters import, less those whose import does
#: more than define things: seaborn imports ipywidgets (:data:`KERNEL_SIDE`), and pandera sets environment
#: variables (``SPARK_LOCAL_IP``, ``PYARROW_IGNORE_TIMEZONE``) that a kernel importing it would then lack.
PRELOAD = (
    "numpy",
    "pandas",
    "pyarrow",
    "scipy.linalg",
    "scipy.optimize",
    "scipy.sparse",
    "scipy.special",
    "scipy.stats",
    "matplotlib",
    "matplotlib.pyplot",
    "sklearn.linear_model",
    "sklearn.model_selection",
    "sklearn.metrics",
    "statsmodels.api",
    "statsmodels.formula.api",
    "joblib",
)
#: Packages each kernel imports afresh, which the server must not have imported: Jupyter's and IPython's settings
#: take defaults from the environment on import (ipykernel's parent process, ``JPY_PARENT_PID``), and ipywidgets
#: registers itself with the running IPython when imported into one.
KERNEL_SIDE = frozenset({"IPython", "ipykernel", "ipywidgets", "comm", "traitlets", "jupyter_client", "jupyter_core",
                         "zmq", "tornado", "matplotlib_inline", "debugpy"})
#: Variables a kernel may have that the server need not share: set per process or per test, read at run time.
RUNTIME_ONLY = frozenset({"JPY_PARENT_PID", "JPY_SESSION_NAME", "PYTEST_CURRENT_TEST", "PWD", "OLDPWD", "_"})
#: ipykernel's default backend (``IPKernelApp.init_gui_pylab``), set before matplotlib is imported.
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


def differences(kernel_env: dict, server_env: dict) -> list[str]:
    """The variables on which a kernel's environment and the server's differ and which may matter on import."""
    keys = set(kernel_env) | set(server_env)
    return sorted(k for k in keys if k not in RUNTIME_ONLY and not k.startswith("COMPENDIUM_")
                  and kernel_env.get(k) != server_env.get(k))


# --- the launcher ---------------------------------------------------------------------------------------


def _fresh_kernel(arguments: list[str]) -> None:
    """Become an ordinary ``ipykernel_launcher`` with ``arguments`` (this process, replaced)."""
    os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *arguments])


def launch(socket_path: str, arguments: list[str]) -> int:
    """Start a kernel forked by the server at ``socket_path``, or an ordinary one; return its exit status."""
    import signal
    import socket

    if os.environ.get(ENABLE_ENV) == "0":
        _fresh_kernel(arguments)
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.connect(socket_path)
    except OSError:
        client.close()
        _fresh_kernel(arguments)
    lifeline_read, lifeline_write = os.pipe()
    request = {"cwd": os.getcwd(), "env": dict(os.environ), "arguments": arguments}
    try:
        socket.send_fds(client, [b"K"], [0, 1, 2, lifeline_read])
        client.sendall(json.dumps(request).encode() + b"\n")
        os.close(lifeline_read)
        reader = client.makefile("rb")
        answer = reader.readline().decode().split()
    except OSError:
        answer = []
    if not answer or answer[0] != "started":
        client.close()
        os.close(lifeline_write)
        _fresh_kernel(arguments)
    pid = int(answer[1])

    def forward(signum, frame):  # jupyter_client signals the launcher's process group; the kernel leads its own
        try:
            os.killpg(pid, signum)
        except ProcessLookupError:
            pass

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(signum, forward)
    while True:
        try:
            line = reader.readline().decode().split()
        except InterruptedError:
            continue
        if not line:  # the server has gone: the kernel may live on; wait for it to end
            import time

            while _alive(pid):
                time.sleep(0.2)
            return 1
        if line[0] == "exited":
            return int(line[1])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- the server -------------------------------------------------------------------------------------------


def _exit_status(status: int) -> int:
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return 1


def serve(socket_path: str) -> None:
    """Import :data:`PRELOAD`, then fork a kernel for each launcher that connects to ``socket_path``.

    The server ends when its standard input closes (its parent has ended).
    """
    import selectors
    import socket
    import threading
    from pathlib import Path

    server_env = dict(os.environ)
    # As ipykernel_launcher does before its imports: the launch directory is not on the kernel's path.
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path.cwd()):
        del sys.path[0]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(16)  # launchers that connect during the imports wait for them
    refusal = ""
    if not os.environ.get("MPLBACKEND"):
        os.environ["MPLBACKEND"] = INLINE_BACKEND
    try:
        import importlib

        for name in PRELOAD:
            importlib.import_module(name)
    except Exception as error:  # a missing library: every kernel starts the ordinary way
        refusal = f"preload-failed:{type(error).__name__}"
    os.environ.clear()
    os.environ.update(server_env)
    imported = sorted({name.split(".")[0] for name in sys.modules} & KERNEL_SIDE)
    if imported:
        refusal = "imported:" + ",".join(imported)
    if threading.active_count() != 1:
        refusal = "threads-running"
    sys.stdout.flush()
    sys.stderr.flush()

    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "listener")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "parent")
    children: dict[int, socket.socket] = {}
    try:
        while True:
            for key, _ in selector.select(timeout=0.1):
                if key.data == "parent":
                    if not os.read(sys.stdin.fileno(), 4096):
                        return
                    continue
                connection, _ = listener.accept()
                child = _start(connection, server_env, refusal, [listener.fileno(), selector, children])
                if child is not None:
                    children[child] = connection
            while children:
                pid, status = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                connection = children.pop(pid, None)
                if connection is not None:
                    try:
                        connection.sendall(f"exited {_exit_status(status)}\n".encode())
                    except OSError:
                        pass
                    connection.close()
    finally:
        listener.close()
        try:
            os.unlink(socket_path)
        except OSError:
            pass


def _start(connection, server_env: dict, refusal: str, inherited: list) -> int | None:
    """Read one launcher's request and fork its kernel; the pid, or None if refused (the launcher is told)."""
    import socket

    connection.settimeout(10)
    fds: list[int] = []
    try:
        _, fds, _, _ = socket.recv_fds(connection, 1, 4)
        data = b""
        while not data.endswith(b"\n"):
            chunk = connection.recv(65536)
            if not chunk:
                raise OSError("the launcher went away")
            data += chunk
        request = json.loads(data)
    except (OSError, ValueError):
        for fd in fds:
            os.close(fd)
        connection.close()
        return None
    reason = refusal
    if not reason and len(fds) != 4:
        reason = "streams-missing"
    if not reason and differences(request["env"], server_env):
        reason = "environment:" + ",".join(differences(request["env"], server_env))
    if not reason and os.path.exists(os.path.join(request["cwd"], "matplotlibrc")):
        reason = "matplotlibrc"
    if reason:
        for fd in fds:
            os.close(fd)
        try:
            connection.sendall(f"refused {reason}\n".encode())
        except OSError:
            pass
        connection.close()
        return None
    pid = os.fork()
    if pid == 0:
        _become_kernel(request, fds, connection, inherited)  # never returns
    for fd in fds:
        os.close(fd)
    connection.settimeout(None)
    try:
        connection.sendall(f"started {pid}\n".encode())
    except OSError:
        pass
    return pid


def _become_kernel(request: dict, fds: list[int], connection, inherited: list) -> None:
    """In the forked child: take the launcher's streams, directory and environment, and run ipykernel."""
    import atexit
    import signal
    import threading

    code = 1
    try:
        listener_fd, selector, children = inherited
        os.close(listener_fd)
        selector.close()
        for other in children.values():
            other.close()
        connection.close()
        os.setsid()  # as jupyter_client starts a kernel: its own session and process group
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
        for fd in fds[:3]:
            if fd > 2:
                os.close(fd)
        lifeline = fds[3]
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGCHLD):
            signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        import importlib.util

        sys.argv = [importlib.util.find_spec("ipykernel_launcher").origin, *request["arguments"]]

        def watch() -> None:  # the launcher holds the other end: when it ends, so do the kernel and its group
            while os.read(lifeline, 1):
                pass
            os.killpg(0, signal.SIGKILL)

        threading.Thread(target=watch, name="launcher-lifeline", daemon=True).start()
        from ipykernel import kernelapp

        kernelapp.launch_new_instance(argv=request["arguments"])
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        try:
            threading._shutdown()
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


# --- the server of this process ----------------------------------------------------------------------------

_SERVER: dict = {}


def server_socket(env: dict) -> str | None:
    """The socket of this process's kernel server, started now with environment ``env`` if it is not running.

    One server per process, with the environment of the last request (less its ``COMPENDIUM_*``
    variables): a request whose environment :func:`differences` from the running server's replaces that
    server (a process's environment can change, as when a library it imports sets a variable). A process
    given another's server by :func:`share` uses that one, as long as the environments agree. The server
    still checks every kernel's own environment and refuses one that differs. None when forked kernels are switched off
    (``COMPENDIUM_FORK_KERNELS=0`` in ``env`` or
    in this process's environment) or the platform has no ``fork``. The socket's path stays the same
    for the life of this process, so a server started again after :func:`stop_server` is found where the
    first one was.
    """
    import atexit
    import subprocess
    import tempfile
    import time

    if env.get(ENABLE_ENV) == "0" or os.environ.get(ENABLE_ENV) == "0" or not hasattr(os, "fork"):
        return None
    server_env = _server_env(env)
    if _SERVER.get("owner") == os.getpid() and _SERVER.get("shared"):
        if not differences(server_env, _SERVER["env"]) and os.path.exists(_SERVER["socket"]):
            return _SERVER["socket"]
        _SERVER.clear()  # this process's environment has changed, or the parent's server has gone: its own
    if _SERVER.get("owner") != os.getpid():  # a forked copy of this process has no server of its own yet
        _SERVER.clear()
        directory = tempfile.mkdtemp(prefix="compendium-ks-")  # short: a socket path has at most ~107 bytes
        _SERVER.update(owner=os.getpid(), directory=directory, socket=os.path.join(directory, "s"))
        atexit.register(_remove, directory)
    process = _SERVER.get("process")
    if process is not None and differences(server_env, _SERVER["env"]):
        stop_server()
        process = None
    if process is None or process.poll() is not None:
        path = _SERVER["socket"]
        if os.path.exists(path):
            os.unlink(path)
        process = subprocess.Popen(
            [sys.executable, "-m", "compendium.build.kernels", "serve", path],
            stdin=subprocess.PIPE, env=server_env, cwd=_SERVER["directory"], start_new_session=True,
        )
        _SERVER.update(process=process, env=server_env)
        # The socket is bound before the imports: once it exists, a launcher that connects waits for them.
        for _ in range(500):
            if os.path.exists(path) or process.poll() is not None:
                break
            time.sleep(0.01)
    return _SERVER["socket"] if os.path.exists(_SERVER["socket"]) else None


def share(socket_path: str, env: dict) -> None:
    """Use, in this process, the server another process started at ``socket_path`` for kernels with
    environment ``env`` (less its ``COMPENDIUM_*`` variables), as :func:`server_socket` returns it.

    :func:`server_socket` returns that server for as long as it runs and the environment it is asked for does
    not :func:`differences` from ``env``; otherwise it starts this process's own. The server refuses any kernel
    whose environment differs from its own (that kernel starts the ordinary way), as for its own process.
    """
    stop_server()
    _SERVER.clear()
    _SERVER.update(owner=os.getpid(), socket=socket_path, shared=True, env=_server_env(env))


def _server_env(env: dict) -> dict:
    """A kernel environment as a server keeps it: less the ``COMPENDIUM_*`` variables, which are read at run time."""
    return {k: v for k, v in env.items() if not k.startswith("COMPENDIUM_")}


def stop_server() -> None:
    """Stop this process's kernel server, if it runs (the kernels it started run on)."""
    process = _SERVER.pop("process", None) if _SERVER.get("owner") == os.getpid() else None
    if process is not None and process.poll() is None:
        try:
            process.stdin.close()
            process.wait(timeout=5)
        except Exception:
            process.kill()
            process.wait()


def _remove(directory: str) -> None:
    import shutil

    stop_server()
    shutil.rmtree(directory, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"] and len(argv) == 2:
        serve(argv[1])
        return 0
    if argv[:1] == ["launch"] and len(argv) >= 2:
        return launch(argv[1], argv[2:])
    print("usage: python -m compendium.build.kernels serve SOCKET | launch SOCKET KERNEL-ARGUMENTS...",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
