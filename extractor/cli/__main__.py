"""`python -m extractor.cli`: the `doi-extract` command."""

from . import run

run()
