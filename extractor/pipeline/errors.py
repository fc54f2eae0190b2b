"""How a scan classes what goes wrong, as datatrove does: retry (a passing fault of the system),
skip this input (InputError: the input cannot be read; reported, the run goes on), or fatal
(anything else: the run stops).

Only what reading and decoding an input raise — the OS, a decompressor, the parser of its format —
says the input is bad: those calls are made inside input_errors() (the readers' own calls, a
format's records taken one by one through read_each). What the matcher, the mention table, the
writers or the pipeline's own code raise passes unchanged, and stops the run: a fault of the
program is never reported as a bad input."""

from __future__ import annotations

import errno
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")


class InputError(Exception):
    """An input that cannot be read: reported with its reason, the run goes on."""


class BinaryInput(InputError):
    """An input that is not text (control bytes, a PDF read as text): grep's binary file, which
    `find` passes over without a word when it walked into it."""


class NotText(BinaryInput):
    """Binary data — an image, a font, an archive of another kind —: no text to lose, so a scan
    passes over one it walked into (counted in `skipped_binary`) and rejects one named outright.
    A PDF read as text is a BinaryInput, never this: its text is there to read."""


# The key a rejected input's entry has while the run decides whether it walked into it (NotText).
NOT_TEXT_KEY = "not_text"


def rejected_entry(source: str, exc: InputError) -> dict[str, Any]:
    """A rejected input's entry: its source and reason, and whether it is binary data (NotText)."""
    entry: dict[str, Any] = {"source": source, "reason": str(exc)}
    if isinstance(exc, NotText):
        entry[NOT_TEXT_KEY] = True
    return entry


# Errors of the system that pass: the same read may succeed when tried again.
_TRANSIENT_ERRNOS = frozenset(
    {errno.EINTR, errno.EAGAIN, errno.EBUSY, errno.ETIMEDOUT, errno.ESTALE, errno.EIO}
)


def is_transient(exc: BaseException) -> bool:
    """Whether an input error is a passing fault worth retrying."""
    cause = exc.__cause__ if isinstance(exc, InputError) else exc
    return isinstance(cause, OSError) and cause.errno in _TRANSIENT_ERRNOS


class StoreError(OSError):
    """An object or listing of a file system reached through fsspec (remote.py) that cannot be
    read, with the reason for the user: an unreadable input, like a missing file."""


class StoreUnreachable(StoreError):
    """A store that no input of it can be read from — it does not answer, its bucket does not
    exist, its package is not installed: the run cannot work, and stops before writing."""


def describe(exc: BaseException) -> str:
    """A reason for the user: what kind of damage, in a few words."""
    if isinstance(exc, StoreError):
        return str(exc)
    name = type(exc).__name__
    if name == "error":  # zlib.error
        name = f"corrupt compressed data ({type(exc).__module__})"
    msg = getattr(exc, "strerror", None) or str(exc)
    if isinstance(exc, EOFError):
        return f"truncated compressed data ({msg or name})"
    return f"{name}: {msg}" if msg else name


def is_corrupt_input(exc: BaseException) -> bool:
    """Whether an exception raised while reading says the input itself is unreadable (missing,
    truncated, corrupt archive) rather than that something is wrong with the program."""
    if isinstance(exc, (EOFError, OSError, ValueError, zlib.error)):
        return True
    if type(exc).__module__ == "_lzma":  # lzma.LZMAError, from a module loaded with an xz input
        return True
    # zstandard's, pyarrow's and python-isal's (igzip_lib.IsalError, a bare Exception) errors
    return type(exc).__module__.split(".")[0] in ("zstandard", "_zstd", "pyarrow", "isal", "igzip_lib")


@contextmanager
def input_errors() -> Iterator[None]:
    """Read an input inside: what says the input itself is unreadable (truncated or corrupt
    archive, missing file) becomes InputError; anything else passes unchanged."""
    try:
        yield
    except InputError:
        raise
    except Exception as exc:
        if is_corrupt_input(exc):
            raise InputError(describe(exc)) from exc
        raise


_END: object = object()


def read_each(items: Iterator[T]) -> Iterator[T]:
    """The items of a reader (a format's records), each taken inside input_errors(): a fault of
    the input as it is read is InputError, and what the consumer then does with an item is its
    own (a fault there is the program's)."""
    while True:
        with input_errors():
            item = next(items, _END)
        if item is _END:
            return
        yield item  # type: ignore[misc]


class Fatal(Exception):
    """An error that stops the run: not an unreadable input, not a passing fault."""


class NotStarted(Fatal):
    """A check before the run found that it cannot work (a reader's extra not installed, a store
    that cannot be reached): nothing was written, and OUT is left as it was."""
