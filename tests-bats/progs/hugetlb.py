#!/usr/bin/env python3
"""Small helpers for the hugetlbfs tests, one subcommand each.

  hugetlb.py fill FILE BYTE        mmap FILE shared and fill it with BYTE;
                                   prints "faulted" once the first page is in
  hugetlb.py zero FILE             exit 0 if every byte of FILE reads zero
  hugetlb.py sealed-grow SIZE      memfd (MFD_HUGETLB), F_SEAL_GROW, then
                                   fallocate past the size: prints the errno name
  hugetlb.py interrupt FILE LEN S  fallocate(2) FILE to LEN bytes with a
                                   SIGALRM after S seconds: prints the errno
                                   name or "ok"
  hugetlb.py read-into FILE        mmap FILE shared and read(2) /dev/zero into
                                   it: the kernel, not this process, takes the
                                   page faults (in copy_to_user())
"""
import ctypes, errno, fcntl, mmap, os, signal, sys

BLOCK = 64 << 20


def fill(path, byte):
    fd = os.open(path, os.O_RDWR)
    size = os.fstat(fd).st_size
    with mmap.mmap(fd, size, mmap.MAP_SHARED) as m:
        # Fault the first page in before building the block: the tests
        # that kill a fault wait for this page to be taken, and read
        # "faulted" as proof that their kill came after the fault ended.
        m[0] = int(byte, 0)
        print("faulted", flush=True)
        block = bytes([int(byte, 0)]) * BLOCK
        for off in range(0, size, BLOCK):
            n = min(BLOCK, size - off)
            m[off:off + n] = block[:n]
    os.close(fd)


def zero(path):
    zeros = bytes(BLOCK)
    with open(path, "rb", buffering=0) as f:
        off = 0
        while True:
            block = f.read(BLOCK)
            if not block:
                break
            if block != zeros[:len(block)]:
                first = next(i for i, b in enumerate(block) if b)
                sys.exit("%s: byte %d is 0x%02x" % (path, off + first, block[first]))
            off += len(block)
    print(off)


def sealed_grow(size):
    fd = os.memfd_create("ktask-seal", os.MFD_HUGETLB | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, int(size))
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_GROW)
    try:
        os.posix_fallocate(fd, 0, 2 * int(size))
        print("ok")
    except OSError as e:
        print(errno.errorcode[e.errno])


def interrupt(path, length, seconds):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
    signal.signal(signal.SIGALRM, lambda *_: None)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    signal.setitimer(signal.ITIMER_REAL, float(seconds))
    # ctypes does not retry on EINTR, unlike os.posix_fallocate.
    ret = libc.fallocate(fd, 0, 0, int(length))
    err = ctypes.get_errno()
    signal.setitimer(signal.ITIMER_REAL, 0)
    print("ok" if ret == 0 else errno.errorcode[err])
    os.close(fd)


def read_into(path):
    fd = os.open(path, os.O_RDWR)
    size = os.fstat(fd).st_size
    zero_fd = os.open("/dev/zero", os.O_RDONLY)
    with mmap.mmap(fd, size, mmap.MAP_SHARED) as m:
        print(os.readv(zero_fd, [memoryview(m)]), flush=True)
    os.close(zero_fd)
    os.close(fd)


if __name__ == "__main__":
    # HUGETLB_ALARM_S: a test running this in the background bounds it on
    # its own (SIGALRM's default action ends the whole process, inside a
    # killable fault too), whatever the test does next.
    if os.environ.get("HUGETLB_ALARM_S"):
        signal.alarm(int(os.environ["HUGETLB_ALARM_S"]))
    {"fill": fill, "zero": zero, "sealed-grow": sealed_grow, "interrupt": interrupt,
     "read-into": read_into}[sys.argv[1]](*sys.argv[2:])
