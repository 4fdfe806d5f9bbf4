"""Writing the page (edgetrain report -o FILE) and the images (edgetrain plot): as edgetrain's own
writer does (src/report/output_file.hpp). A regular file, or nothing yet, is written to a temporary
file beside it and renamed over it (a symlink stays, its target gets the content); a character
device, a FIFO or an open file of this process (/dev/null, /dev/stdout) is written through; anything else is refused, and so is a
file the command read (result_files.read_files)."""

import os
import stat

from result_files import InputError, read_files


def _names_open_file(path):
    """/dev/stdout, /dev/fd/N, /proc/self/fd/N: an open file of this process, written through."""
    p = os.path.normpath(os.path.abspath(path))
    return p.startswith(("/dev/stdout", "/dev/stderr", "/dev/fd/")) or (p.startswith("/proc/") and "/fd/" in p)


def write_output(path, data):
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None:
        if (st.st_dev, st.st_ino) in read_files:
            raise InputError(f"{path}: is one of the files read; writing it would destroy it: choose another output")
        if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode) or _names_open_file(path):
            fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            return
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a special file"
            raise InputError(f"{path}: is {kind}; edgetrain writes a regular file there, "
                             "or through a character device or FIFO")
    target = os.path.realpath(path)  # a dangling symlink: where it points
    temporary = f"{target}.tmp-{os.getpid()}"
    try:
        with open(temporary, "wb") as f:
            f.write(data)
        os.replace(temporary, target)  # a reader never sees half a file
    except BaseException:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise
