"""JSON string escapes (RFC 8259 §7), decoded one way for every reader of JSON text.

The HTML view of JSON-LD scripts and the streamed JSONL record reader both decode escapes
here, so that the same escaped DOI reads the same wherever it is found: a surrogate pair
(`\\ud83d\\ude00`) is one character, a lone surrogate (not valid Unicode, RFC 8259 §8.2)
reads as U+FFFD, and no lone surrogate ever reaches the matcher or the output.
"""

from __future__ import annotations

import re

JSON_ESCAPES = {"/": "/", "\\": "\\", '"': '"', "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}

# One valid escape: a surrogate pair first (one character), then \uXXXX, then the short ones.
ESCAPE = re.compile(
    r"\\(?:u[dD][89abAB][0-9A-Fa-f]{2}\\u[dD][c-fC-F][0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|[/\\\"bfnrt])"
)
_HIGH_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9A-Fa-f]{2}")
# What may follow a high surrogate escape at the end of a piece and still become its low half.
_LOW_PREFIX = re.compile(r"(?:\\(?:u(?:[dD](?:[c-fC-F][0-9A-Fa-f]{0,2})?)?)?)?")


def unescape(esc: str) -> str:
    """The text of one escape matched by ESCAPE."""
    if esc[1] != "u":
        return JSON_ESCAPES[esc[1]]
    code = int(esc[2:6], 16)
    if len(esc) == 12:
        return chr(0x10000 + ((code - 0xD800) << 10) + (int(esc[8:12], 16) - 0xDC00))
    if 0xD800 <= code < 0xE000:
        return "\ufffd"
    return chr(code)


class JsonStringDecoder:
    """Decodes the inside of a JSON string fed in pieces, up to its closing quote.

    For a record too large to parse whole: the string is handed on as it is decoded.
    """

    def __init__(self) -> None:
        self.pending = ""
        self.done = False
        self.rest = ""

    def feed(self, s: str) -> str:
        s = self.pending + s
        self.pending = ""
        out: list[str] = []
        i = 0
        quote = s.find('"')  # kept until passed: the closing quote may be megabytes ahead
        while True:
            if 0 <= quote < i:
                quote = s.find('"', i)
            j = s.find("\\", i)
            if quote >= 0 and (j < 0 or quote < j):
                out.append(s[i:quote])
                self.done = True
                self.rest = s[quote + 1 :]
                break
            if j < 0:
                out.append(s[i:])
                break
            out.append(s[i:j])
            if (
                j + 1 >= len(s)
                or (s[j + 1] == "u" and j + 6 > len(s))
                or (j + 12 > len(s) and _HIGH_SURROGATE.match(s, j) and _LOW_PREFIX.fullmatch(s, j + 6))
            ):
                self.pending = s[j:]  # an escape (or a surrogate pair) the next piece completes
                break
            m = ESCAPE.match(s, j)
            if m is not None:
                out.append(unescape(m.group()))
                i = m.end()
                continue
            # Not a valid escape: a malformed \u reads as U+FFFD, \x as x.
            out.append("\ufffd" if s[j + 1] == "u" else s[j + 1])
            i = j + 2
        return "".join(out)
