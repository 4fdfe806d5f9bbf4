"""Writing the page (edgetrain report -o FILE) and the images (edgetrain plot): as edgetrain's own
writer does (src/report/output_file.hpp). A regular file, or nothing yet, is written to a temporary
file beside it and renamed over it (a symlink stays, its target gets the content); a character
device, a FIFO or an open file of this process (/dev/null, /dev/stdout) is written through; anything
else is refused, and so is a file the command read (result_files.read_files).

File names made from text of a results folder (a sweep figure's name holds sweep.csv's column names)
go through safe_file_name, and each image path is checked to stay inside its folder once symlinks are
resolved (inside_folder); the outputs a command writes into the results folder by default (plots/,
report.html) may not be symlinks (untrusted_default): a results folder is untrusted input
(docs/reference/bad-input.md, "Plot and report output names")."""

import hashlib
import os
import re
import stat

from result_files import InputError, printable, read_files

MAX_NAME_CHARS = 100  # of a file name made from text, before its suffix: far below NAME_MAX (255 bytes)
_NOT_NAME = re.compile(r"[^A-Za-z0-9._-]")


def safe_file_name(text, suffix, taken=None):
    """A file name for `text` (a chart key built from column names): letters, digits, '.', '_' and '-'
    kept, every other character (a '/', a space, a control character, any non-ASCII) and every run of
    two or more dots ('..') made '_', runs of '_' one; no leading '.' or '-' (no hidden file, nothing
    read as an option), never empty; at most MAX_NAME_CHARS, a longer one cut and ended with 8 hex digits
    of the text's SHA-256 (so that two long names stay two files); then `suffix`. `taken` (a set of the
    names given so far) makes each name unique: a second "a_b" (from "a/b" and "a:b") is "a_b-2"."""
    name = _NOT_NAME.sub("_", re.sub(r"\.{2,}", "_", text))
    name = re.sub(r"_{2,}", "_", name).lstrip(".-") or "figure"
    if len(name) > MAX_NAME_CHARS:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        name = f"{name[: MAX_NAME_CHARS - 9]}-{digest}"
    if taken is not None:
        base, n = name, 2
        while (name + suffix) in taken:
            name, n = f"{base}-{n}", n + 1
        taken.add(name + suffix)
    return name + suffix


def inside_folder(path, folder):
    """Refuses `path` unless it names an entry of `folder` once every symlink is resolved (an image
    there that is a symlink out of the folder, dangling or not, would be written where it points)."""
    real_folder = os.path.realpath(folder)
    real = os.path.realpath(path)
    if os.path.dirname(real) != real_folder or os.path.basename(real) in ("", ".", ".."):
        raise InputError(f"{path}: resolves to {real}, outside the folder of the images ({real_folder}); "
                         "remove it or choose another --out")


def untrusted_default(path, option):
    """An output the command writes into the results folder by default (its plots/ or report.html) may
    not be a symlink: the folder is untrusted, and a link there would send the write anywhere. Naming
    the output with `option` follows a symlink, as any output."""
    if os.path.islink(path):
        raise InputError(f"{path}: is a symlink (to {printable(os.readlink(path))}) in the results folder, which is "
                         f"untrusted: edgetrain does not write through it (name the output with {option} to do so)")


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
