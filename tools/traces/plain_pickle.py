"""Pickles read as plain data, never executed: a small interpreter of the pickle opcodes that build dicts,
lists, tuples, numbers, strings, booleans and None, with the stack, marks and memo of Python's unpickler.
An opcode that would import a name, call anything, or build an object, a set or bytes is refused
(RefusedPickle). Python's own unpickler is not used even with find_class refused: its C code sizes the
memo by whatever index a pickle names (9 bytes ask for 16 GiB) and hashes dict keys where Ctrl-C cannot
reach (a key of shared nested tuples takes 2^100 steps). For tools/traces/fedscale_to_csv.py, and the
escaping of names and values its messages quote (one line, bounded).
"""
import codecs
import struct

MAX_KEY_INT = 2**61 - 2  # integer dict keys: below Python's hash modulus, so distinct keys never collide
MAX_LINE = 4300  # digits of a text opcode's number (Python's own limit for int())


class RefusedPickle(Exception):
    """The pickle asks for something other than plain data, or is not a readable pickle."""


# -- Names and values in messages: one line, escaped, bounded ------------------------------------------------------


def printable(text):
    """`text` with every character that is not printable (control characters, line and paragraph
    separators, bidirectional and other format characters) written as \\xNN, \\uNNNN or \\UNNNNNNNN,
    so that a message stays one line and drives no terminal."""
    if text.isprintable():
        return text
    out = []
    for c in text:
        if c.isprintable():
            out.append(c)
        else:
            n = ord(c)
            out.append(f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}")
    return "".join(out)


def quoted(text, limit=60):
    """A string from the file as it is shown in a message: quoted, escaped, cut to `limit` characters."""
    cut = len(text) > limit
    body = text[:limit].replace("\\", "\\\\").replace('"', '\\"')
    return '"' + printable(body) + ("...\"" if cut else '"') + (f" ({len(text)} characters)" if cut else "")


def describe(v):
    """A value from the file in a message, without repr() (which recurses into containers and
    refuses integers of more than 4,300 digits)."""
    if v is None or isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v) if v.bit_length() <= 64 else f"an integer of {v.bit_length()} bits"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return quoted(v)
    if isinstance(v, (list, tuple, dict)):
        return f"a {type(v).__name__} of {len(v)} item{'' if len(v) == 1 else 's'}"
    return f"a {type(v).__name__}"


def client_label(client):
    return f"client {describe(client)}"


# -- Reading a pickle as plain data ------------------------------------------------------------------------------------


def _refuse_object(what):
    return RefusedPickle(f"the pickle {what}: only dicts, lists, numbers and strings are read")


class _PlainReader:
    """An interpreter of the pickle opcodes that build plain data (pickletools names them), with the
    stack, marks and memo of Python's unpickler. It imports nothing and calls nothing from the pickle."""

    def __init__(self, data):
        self.data = data
        self.pos = 0
        self.stack = []
        self.marks = []
        self.memo = {}

    # Reading the opcode arguments.
    def take(self, n):
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise RefusedPickle(f"not a readable pickle (it ends inside an opcode at byte {self.pos})")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def line(self, limit=MAX_LINE):
        """A text argument (up to its newline): a number's at most `limit` bytes, a string's any length."""
        end = self.data.find(b"\n", self.pos, None if limit is None else self.pos + limit + 1)
        if end < 0:
            raise RefusedPickle(f"not a readable pickle (a text argument at byte {self.pos} ends with no newline"
                                + ("" if limit is None else f" within {limit} bytes") + ")")
        text = self.data[self.pos : end]
        self.pos = end + 1
        return text

    def unsigned(self, n):
        return int.from_bytes(self.take(n), "little")

    def pop(self):
        if not self.stack:
            raise RefusedPickle(f"not a readable pickle (an opcode at byte {self.pos} finds the stack empty)")
        return self.stack.pop()

    def top(self):
        if not self.stack:
            raise RefusedPickle(f"not a readable pickle (an opcode at byte {self.pos} finds the stack empty)")
        return self.stack[-1]

    def pop_mark(self):
        if not self.marks:
            raise RefusedPickle(f"not a readable pickle (an opcode at byte {self.pos} finds no mark)")
        items = self.stack
        self.stack = self.marks.pop()
        return items

    def text_int(self, what):
        text = self.line()
        try:
            return int(text[:-1] if text.endswith(b"L") else text, 0 if what in ("INT", "LONG") else 10)
        except ValueError:
            raise RefusedPickle(f"not a readable pickle ({what} at byte {self.pos}: not an integer)") from None

    # Containers.
    def set_item(self, target, key, value):
        if not isinstance(target, dict):
            raise RefusedPickle(f"not a readable pickle (a dict item set on {describe(target)})")
        if isinstance(key, str) or (isinstance(key, int) and not isinstance(key, bool) and abs(key) <= MAX_KEY_INT):
            target[key] = value
            return
        if isinstance(key, int) and not isinstance(key, bool):
            raise RefusedPickle(f"the pickle holds a dict key of {key.bit_length()} bits: integer keys are read up to "
                                f"2^61 - 2 (client ids)")
        raise RefusedPickle(f"the pickle holds a dict key that is {describe(key)}: keys are strings or integers")

    def memo_index(self, index):
        if not 0 <= index < 2**32:
            raise RefusedPickle(f"not a readable pickle (memo index {describe(index)} at byte {self.pos})")
        return index

    def get(self, index):
        if index not in self.memo:
            raise RefusedPickle(f"not a readable pickle (memo index {index} at byte {self.pos} was never stored)")
        self.stack.append(self.memo[index])

    def string(self, raw, errors="strict"):
        return raw.decode("utf-8", errors)

    def load(self):
        data, stack_ops, end = self.data, self.OPS, len(self.data)
        while self.pos < end:
            op = data[self.pos]
            self.pos += 1
            handler = stack_ops.get(op)
            if handler is None:
                raise RefusedPickle(f"not a readable pickle (opcode 0x{op:02x} at byte {self.pos - 1})")
            if handler(self) is _STOP:
                return self.pop()
        raise RefusedPickle("not a readable pickle (it ends before its STOP opcode)")

    # The opcodes, by pickletools' names.
    def op_proto(self):
        proto = self.unsigned(1)
        if proto > 5:
            raise RefusedPickle(f"not a readable pickle (protocol {proto})")

    def op_frame(self):
        self.take(8)  # a frame is a hint for buffered reading; its bytes follow inline

    def op_stop(self):
        return _STOP

    def op_mark(self):
        self.marks.append(self.stack)
        self.stack = []

    def op_pop(self):
        if self.stack:
            self.stack.pop()
        else:
            self.pop_mark()

    def op_pop_mark(self):
        self.pop_mark()

    def op_dup(self):
        self.stack.append(self.top())

    def op_none(self):
        self.stack.append(None)

    def op_true(self):
        self.stack.append(True)

    def op_false(self):
        self.stack.append(False)

    def op_int(self):
        text = self.data[self.pos : self.pos + 3]
        if text in (b"00\n", b"01\n"):
            self.pos += 3
            self.stack.append(text == b"01\n")
        else:
            self.stack.append(self.text_int("INT"))

    def op_binint(self):
        self.stack.append(struct.unpack("<i", self.take(4))[0])

    def op_binint1(self):
        self.stack.append(self.unsigned(1))

    def op_binint2(self):
        self.stack.append(self.unsigned(2))

    def op_long(self):
        self.stack.append(self.text_int("LONG"))

    def op_long1(self):
        self.stack.append(int.from_bytes(self.take(self.unsigned(1)), "little", signed=True))

    def op_long4(self):
        n = struct.unpack("<i", self.take(4))[0]
        self.stack.append(int.from_bytes(self.take(n), "little", signed=True))

    def op_float(self):
        try:
            self.stack.append(float(self.line()))
        except ValueError:
            raise RefusedPickle(f"not a readable pickle (FLOAT at byte {self.pos}: not a number)") from None

    def op_binfloat(self):
        self.stack.append(struct.unpack(">d", self.take(8))[0])

    def op_string(self):  # protocol 0's quoted Python 2 string, as Python's unpickler reads it (encoding ASCII)
        text = self.line(None).rstrip()
        if len(text) < 2 or text[0] != text[-1] or text[0] not in b"\"'":
            raise RefusedPickle(f"not a readable pickle (STRING at byte {self.pos}: not quoted)")
        self.stack.append(codecs.escape_decode(text[1:-1])[0].decode("ascii"))

    def op_binstring(self):
        n = struct.unpack("<i", self.take(4))[0]
        self.stack.append(self.take(n).decode("ascii"))

    def op_short_binstring(self):
        self.stack.append(self.take(self.unsigned(1)).decode("ascii"))

    def op_unicode(self):
        self.stack.append(self.line(None).decode("raw-unicode-escape"))

    def op_binunicode(self):
        self.stack.append(self.string(self.take(self.unsigned(4)), "surrogatepass"))

    def op_short_binunicode(self):
        self.stack.append(self.string(self.take(self.unsigned(1)), "surrogatepass"))

    def op_binunicode8(self):
        self.stack.append(self.string(self.take(self.unsigned(8)), "surrogatepass"))

    def op_empty_list(self):
        self.stack.append([])

    def op_list(self):
        items = self.pop_mark()  # first: popping the mark replaces self.stack
        self.stack.append(items)

    def op_append(self):
        value = self.pop()
        target = self.top()
        if not isinstance(target, list):
            raise RefusedPickle(f"not a readable pickle (APPEND to {describe(target)})")
        target.append(value)

    def op_appends(self):
        items = self.pop_mark()
        target = self.top()
        if not isinstance(target, list):
            raise RefusedPickle(f"not a readable pickle (APPENDS to {describe(target)})")
        target.extend(items)

    def op_empty_tuple(self):
        self.stack.append(())

    def op_tuple(self):
        items = tuple(self.pop_mark())
        self.stack.append(items)

    def op_tuple1(self):
        self.stack.append((self.pop(),))

    def op_tuple2(self):
        b, a = self.pop(), self.pop()
        self.stack.append((a, b))

    def op_tuple3(self):
        c, b, a = self.pop(), self.pop(), self.pop()
        self.stack.append((a, b, c))

    def op_empty_dict(self):
        self.stack.append({})

    def op_dict(self):
        items = self.pop_mark()
        if len(items) % 2:
            raise RefusedPickle(f"not a readable pickle (DICT of an odd number of items at byte {self.pos})")
        d = {}
        for i in range(0, len(items), 2):
            self.set_item(d, items[i], items[i + 1])
        self.stack.append(d)

    def op_setitem(self):
        value, key = self.pop(), self.pop()
        self.set_item(self.top(), key, value)

    def op_setitems(self):
        items = self.pop_mark()
        if len(items) % 2:
            raise RefusedPickle(f"not a readable pickle (SETITEMS of an odd number of items at byte {self.pos})")
        target = self.top()
        for i in range(0, len(items), 2):
            self.set_item(target, items[i], items[i + 1])

    def op_get(self):
        self.get(self.memo_index(self.text_int("GET")))

    def op_binget(self):
        self.get(self.unsigned(1))

    def op_long_binget(self):
        self.get(self.unsigned(4))

    def op_put(self):
        self.memo[self.memo_index(self.text_int("PUT"))] = self.top()

    def op_binput(self):
        self.memo[self.unsigned(1)] = self.top()

    def op_long_binput(self):
        self.memo[self.unsigned(4)] = self.top()

    def op_memoize(self):
        self.memo[len(self.memo)] = self.top()

    # Refused: names, calls and objects.
    def op_global(self):
        module, name = self.line(), self.line()
        raise _asks_for(module.decode("utf-8", "replace"), name.decode("utf-8", "replace"))

    def op_stack_global(self):
        name, module = self.pop(), self.pop()
        raise _asks_for(module if isinstance(module, str) else describe(module),
                        name if isinstance(name, str) else describe(name))

    def op_inst(self):
        self.op_global()

    def op_call(self):
        raise _refuse_object("asks to build an object or call a function")

    def op_ext(self):
        raise _refuse_object("asks for a registered extension (a class or function)")

    def op_persid(self):
        raise _refuse_object("holds a persistent id")

    def op_bytes(self):
        raise _refuse_object("holds bytes")

    def op_set(self):
        raise _refuse_object("holds a set")

    def op_buffer(self):
        raise _refuse_object("holds an out-of-band buffer")


def _asks_for(module, name):
    return RefusedPickle(f"the pickle asks for {printable(module[:80])}.{printable(name[:80])}: "
                         "only dicts, lists, numbers and strings are read")


_STOP = object()
_R = _PlainReader
_PlainReader.OPS = {
    0x80: _R.op_proto, 0x95: _R.op_frame, ord("."): _R.op_stop, ord("("): _R.op_mark, ord("0"): _R.op_pop,
    ord("1"): _R.op_pop_mark, ord("2"): _R.op_dup, ord("N"): _R.op_none, 0x88: _R.op_true, 0x89: _R.op_false,
    ord("I"): _R.op_int, ord("J"): _R.op_binint, ord("K"): _R.op_binint1, ord("M"): _R.op_binint2,
    ord("L"): _R.op_long, 0x8A: _R.op_long1, 0x8B: _R.op_long4, ord("F"): _R.op_float, ord("G"): _R.op_binfloat,
    ord("S"): _R.op_string, ord("T"): _R.op_binstring, ord("U"): _R.op_short_binstring, ord("V"): _R.op_unicode,
    ord("X"): _R.op_binunicode, 0x8C: _R.op_short_binunicode, 0x8D: _R.op_binunicode8,
    ord("]"): _R.op_empty_list, ord("l"): _R.op_list, ord("a"): _R.op_append, ord("e"): _R.op_appends,
    ord(")"): _R.op_empty_tuple, ord("t"): _R.op_tuple, 0x85: _R.op_tuple1, 0x86: _R.op_tuple2, 0x87: _R.op_tuple3,
    ord("}"): _R.op_empty_dict, ord("d"): _R.op_dict, ord("s"): _R.op_setitem, ord("u"): _R.op_setitems,
    ord("g"): _R.op_get, ord("h"): _R.op_binget, ord("j"): _R.op_long_binget, ord("p"): _R.op_put,
    ord("q"): _R.op_binput, ord("r"): _R.op_long_binput, 0x94: _R.op_memoize,
    ord("c"): _R.op_global, 0x93: _R.op_stack_global, ord("i"): _R.op_inst,
    ord("R"): _R.op_call, ord("b"): _R.op_call, ord("o"): _R.op_call, 0x81: _R.op_call, 0x92: _R.op_call,
    0x82: _R.op_ext, 0x83: _R.op_ext, 0x84: _R.op_ext, ord("P"): _R.op_persid, ord("Q"): _R.op_persid,
    ord("B"): _R.op_bytes, ord("C"): _R.op_bytes, 0x8E: _R.op_bytes, 0x96: _R.op_bytes,
    0x8F: _R.op_set, 0x90: _R.op_set, 0x91: _R.op_set, 0x97: _R.op_buffer, 0x98: _R.op_buffer,
}

ALLOWED = (dict, list, tuple, int, float, str, bool, type(None))


def check_plain(value):
    """Raises RefusedPickle unless `value` is made only of the allowed types. Each container is
    visited once (by id), so a container holding itself or sub-objects shared many times (a pickle
    of a few hundred bytes can describe a tree of 2^100 nodes) costs one visit per distinct object."""
    seen = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if not isinstance(v, ALLOWED):
            raise _refuse_object(f"holds a {type(v).__name__}")
        if isinstance(v, (dict, list, tuple)):
            if id(v) in seen:
                continue
            seen.add(id(v))
            if isinstance(v, dict):
                stack.extend(v.keys())
                stack.extend(v.values())
            else:
                stack.extend(v)


def load_plain(data: bytes):
    """The plain data in the pickle bytes `data`, never executing anything."""
    try:
        value = _PlainReader(data).load()
    except RefusedPickle:
        raise
    except MemoryError:
        raise RefusedPickle("the pickle needs more memory than the reader may take") from None
    except RecursionError:
        raise RefusedPickle("not a readable pickle (nested too deeply)") from None
    except (ValueError, OverflowError, UnicodeError, struct.error) as e:  # a malformed argument
        raise RefusedPickle(f"not a readable pickle ({type(e).__name__}: {_message(e)})") from None
    check_plain(value)
    return value


def _message(e, limit=120):
    try:
        text = str(e)
    except Exception:  # noqa: BLE001 (str() of an exception holding an enormous integer)
        text = type(e).__name__
    return printable(text[:limit])
