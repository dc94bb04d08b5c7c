"""Runs inside the Linux sandbox, in front of the sandboxed command (standard library only: it is started
with `python -I -S`).

1. With `--port P --socket S`: listen on 127.0.0.1:P inside the sandbox's private network and relay each
   connection to the host-side domain proxy's Unix socket S (the only way out of the network namespace).
2. With `--deny-unix-sockets`: install a seccomp filter so the command cannot create Unix-domain sockets
   (which would reach host daemons such as Docker or an SSH agent through the read-only filesystem).
3. Exec the command. The relay runs in a forked child whose stdio is /dev/null; it dies with the sandbox's
   PID namespace when the command exits.

Any failure to set this up ends the run with exit status 126 and one line on stderr (fail closed).
"""

from __future__ import annotations

import os
import socket
import struct
import sys
import threading

EXIT_SETUP_FAILED = 126


def main(argv: list[str]) -> None:
    port, sock_path, deny_unix, command = _parse(argv)
    listener = None
    if port is not None and sock_path is not None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(64)
        if os.fork() == 0:
            _detach()
            _serve(listener, sock_path)
            os._exit(0)
        listener.close()
    if deny_unix:
        _deny_unix_sockets()
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        _fail(f"cannot run {command[0]}: {exc.strerror}", 127)


def _parse(argv: list[str]) -> tuple[int | None, str | None, bool, list[str]]:
    port = sock_path = None
    deny_unix = False
    i = 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--port":
            port = int(argv[i + 1])
            i += 2
        elif argv[i] == "--socket":
            sock_path = argv[i + 1]
            i += 2
        elif argv[i] == "--deny-unix-sockets":
            deny_unix = True
            i += 1
        else:
            _fail(f"unknown bridge option {argv[i]}")
    command = argv[i + 1 :]
    if not command:
        _fail("no command to run")
    return port, sock_path, deny_unix, command


def _detach() -> None:
    """Leave the command's output alone, and make this process untraceable by it (it holds the way out)."""
    import ctypes

    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _serve(listener: socket.socket, sock_path: str) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_relay, args=(client, sock_path), daemon=True).start()


def _relay(client: socket.socket, sock_path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(sock_path)
    except OSError:
        client.close()
        return
    done = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    done.start()
    _pump(client, upstream)
    done.join()
    client.close()
    upstream.close()


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


# seccomp: socket(AF_UNIX, …) fails with EPERM; everything else is allowed.
_ARCHES = {  # machine -> (AUDIT_ARCH value, socket syscall number)
    "x86_64": (0xC000003E, 41),
    "aarch64": (0xC00000B7, 198),
}
_BPF_LD_W_ABS, _BPF_JEQ_K, _BPF_JSET_K, _BPF_RET_K = 0x20, 0x15, 0x45, 0x06
_RET_ALLOW, _RET_EPERM = 0x7FFF0000, 0x00050000 | 1
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, _PR_SET_DUMPABLE = 38, 22, 2, 4


def seccomp_program(machine: str) -> bytes:
    arch, nr_socket = _ARCHES[machine]
    program = [
        (_BPF_LD_W_ABS, 0, 0, 4),  # arch
        (_BPF_JEQ_K, 1, 0, arch),
        (_BPF_RET_K, 0, 0, _RET_EPERM),  # a foreign ABI (i386 on x86_64): refuse every call
        (_BPF_LD_W_ABS, 0, 0, 0),  # syscall number
        (_BPF_JSET_K, 0, 1, 0x40000000),  # the x32 ABI on x86_64
        (_BPF_RET_K, 0, 0, _RET_EPERM),
        (_BPF_JEQ_K, 0, 3, nr_socket),
        (_BPF_LD_W_ABS, 0, 0, 16),  # args[0], low word: the address family
        (_BPF_JEQ_K, 0, 1, socket.AF_UNIX),
        (_BPF_RET_K, 0, 0, _RET_EPERM),
        (_BPF_RET_K, 0, 0, _RET_ALLOW),
    ]
    return b"".join(struct.pack("=HBBI", *ins) for ins in program)


def _deny_unix_sockets() -> None:
    import ctypes

    machine = os.uname().machine
    if machine not in _ARCHES:
        _fail(
            f"the Unix-socket filter is not available on {machine} (set sandbox.network.allowAllUnixSockets)"
        )
    code = seccomp_program(machine)
    buffer = ctypes.create_string_buffer(code, len(code))

    class _Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = _Prog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _fail(f"prctl(NO_NEW_PRIVS) failed: {os.strerror(ctypes.get_errno())}")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        _fail(f"cannot install the Unix-socket filter: {os.strerror(ctypes.get_errno())}")


def _fail(message: str, status: int = EXIT_SETUP_FAILED) -> None:
    sys.stderr.write(f"yoke sandbox: {message}\n")
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    main(sys.argv[1:])
