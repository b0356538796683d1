"""The seccomp filter every sandboxed process runs under, compiled to BPF on the host.

Default allow; the calls that reach beyond the sandbox fail with an errno:
sockets other than AF_UNIX (EACCES), tracing and cross-process memory access,
new namespaces (``unshare``, ``setns``, ``clone``/``clone3`` with namespace
flags), ``mount``, ``bpf``, the kernel keyring, io_uring (it can open sockets
without ``socket()``), ``perf_event_open`` and ``userfaultfd`` (EPERM).
Foreign-architecture system calls (the i386/x32 ABIs) kill the process
(libseccomp's default for architectures not in the filter). bubblewrap loads
the program with ``--seccomp FD``; :func:`filter_bpf` needs ``pyseccomp`` and
the system's libseccomp, and returns ``None`` when they are missing.
"""

from __future__ import annotations

import errno
import functools
import socket
import tempfile

DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "unshare", "setns", "mount", "umount2",
    "pivot_root", "bpf", "keyctl", "add_key", "request_key", "io_uring_setup",
    "perf_event_open", "userfaultfd", "pidfd_getfd", "kcmp", "open_by_handle_at",
)
_NAMESPACE_FLAGS = 0x7E020000
"""CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET."""


@functools.cache
def filter_bpf() -> bytes | None:
    """The compiled filter, or None when pyseccomp/libseccomp is unavailable."""
    try:
        import pyseccomp as sc  # loads the host's libseccomp, which may be missing
    except (ImportError, OSError):
        return None
    try:
        rules = sc.SyscallFilter(defaction=sc.ALLOW)
        for family in ("socket", "socketpair"):
            rules.add_rule(sc.ERRNO(errno.EACCES), family, sc.Arg(0, sc.NE, socket.AF_UNIX))
        for name in DENIED:
            rules.add_rule(sc.ERRNO(errno.EPERM), name)
        for bit in _flag_bits(_NAMESPACE_FLAGS):
            rules.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, bit, bit))
        # clone3 passes its flags in memory seccomp cannot read: ENOSYS makes libc fall back.
        rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
        with tempfile.TemporaryFile() as out:
            rules.export_bpf(out)
            out.seek(0)
            return out.read()
    except (OSError, RuntimeError, ValueError):
        return None


def _flag_bits(mask: int) -> list[int]:
    return [1 << bit for bit in range(64) if mask >> bit & 1]
