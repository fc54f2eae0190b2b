"""The C part of the package: the plain-text matcher on raw bytes (extractor/match/_cscan.c).

Everything else is declared in pyproject.toml; setuptools needs this file for an extension.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("extractor.match._cscan", ["extractor/match/_cscan.c"], extra_compile_args=["-std=c11", "-Wall"]),
    ]
)
