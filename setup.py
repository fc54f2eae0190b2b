"""The C part of the package: the matcher for plain text, PDF text and HTML on raw bytes
(extractor/match/_cscan.c).

Optional: where it cannot be compiled (no compiler, no Python headers) the build warns and the
package installs without it, using the Python matcher (issue 13). Everything else is declared
in pyproject.toml; setuptools needs this file for an extension.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "extractor.match._cscan",
            ["extractor/match/_cscan.c"],
            extra_compile_args=["-std=c11", "-Wall"],
            optional=True,
        ),
    ]
)
