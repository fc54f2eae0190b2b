"""`python -m extractor`: the `doi-extract` command, where its script is not on PATH."""

from .cli import run

run()
