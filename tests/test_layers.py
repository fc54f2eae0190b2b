"""The layers hold (ARCHITECTURE.md): data flows one way, cli → engines → pipeline → match; no
import cycle anywhere, lazy imports (inside functions) included; no private name imported across
modules; each C extension imported by one module of its own layer; the C parts split by concern
(no file over 1,500 lines) and the mention table and merge outside match/."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "extractor"
LAYERS = ["match", "pipeline", "engines", "cli"]  # each may import only those before it
# What a layer must not use, besides the layers above it.
FORBIDDEN = {
    "match": {
        "pyarrow",
        "tqdm",
        "argparse",
        "multiprocessing",
        "concurrent",
        "mmap",
        "gzip",
        "zstandard",
        "io",
        "os",
    },
    "pipeline": {"tqdm", "argparse", "multiprocessing", "concurrent"},
    "engines": {"tqdm", "argparse"},
}


def _module_name(path: Path) -> str:
    parts = ["extractor", *path.relative_to(PKG).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PKG.rglob("*.py")}
# Built from C (a unity file _NAME.c beside the folder of parts it includes): they import nothing.
EXTENSIONS = {_module_name(p) for p in PKG.rglob("_*.c")}
# Each extension and the one module that imports it.
EXTENSION_IMPORTERS = {
    "extractor.match._cscan": "extractor.match.native",
    "extractor.pipeline._ctable": "extractor.pipeline.table",
    "extractor.pipeline.formats._cjsonl": "extractor.pipeline.formats.jsonlines",
}


def _imports(name: str) -> list[tuple[str, list[str]]]:
    """(module imported, names taken from it) for every import statement, at any depth."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rsplit(".", 1)[0]
            target = (base + "." + node.module if node.module else base) if node.level else node.module or ""
            names = [a.name for a in node.names]
            # `from pkg import module` imports the module itself
            known = MODULES.keys() | EXTENSIONS
            subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in known]
            out += [(s, []) for s in subs] or [(target, names)]
            if subs and len(subs) < len(names):
                out.append((target, [n for n in names if f"{target}.{n}" not in known]))
    return out


def _layer(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_layer_imports_only_the_layers_below_it(name: str) -> None:
    layer = _layer(name)
    if layer is None:
        return
    allowed = set(LAYERS[: LAYERS.index(layer) + 1])
    for target, _names in _imports(name):
        top = target.split(".")[0]
        assert top not in FORBIDDEN.get(layer, set()), f"{name} imports {target}"
        other = _layer(target)
        if other is not None:
            assert other in allowed, f"{name} ({layer}) imports {target} ({other})"


def test_no_import_cycle_lazy_imports_included() -> None:
    graph = {name: {t for t, _ in _imports(name) if t in MODULES and t != name} for name in MODULES}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph[n]):
            if state.get(m) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*stack[stack.index(m) :], m]))
            if m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n)


def test_no_private_name_is_imported_across_modules() -> None:
    for name in MODULES:
        for target, names in _imports(name):
            if target.startswith("extractor"):
                private = [n for n in names if n.startswith("_") and n != "__version__"]
                assert not private, f"{name} imports {private} from {target}"


def test_each_c_extension_has_one_importer() -> None:
    assert set(EXTENSION_IMPORTERS) == EXTENSIONS
    for ext, importer in EXTENSION_IMPORTERS.items():
        importers = {n for n in MODULES for t, _ in _imports(n) if t == ext}
        assert importers == {importer}, ext


def test_no_c_file_is_over_1500_lines() -> None:
    """The C parts are split by concern, each file readable on its own."""
    sizes = {p.relative_to(PKG).as_posix(): len(p.read_text().splitlines()) for p in PKG.rglob("*.[ch]")}
    assert len(sizes) >= 10
    assert {name: n for name, n in sizes.items() if n > 1500} == {}


def test_match_says_only_what_a_doi_is() -> None:
    """The mention table, the buckets and the merge's grouping are the pipeline's: no file
    under match/ (C or Python) defines them."""
    for path in (PKG / "match").rglob("*"):
        if path.suffix in (".c", ".h", ".py", ".pyi"):
            text = path.read_text()
            for name in ("Mentions", "group_mentions", "bucket_of", "fnv1a"):
                assert name not in text, f"{path.relative_to(PKG)} holds {name}"


def test_the_checker_sees_lazy_and_relative_imports() -> None:
    """The rules above read what they claim to read (they would pass vacuously otherwise)."""
    assert ("extractor.engines.procs", ["start_worker_server"]) in _imports(
        "extractor.cli"
    )  # lazy, in main()
    assert ("extractor.match.jsonstr", []) in _imports("extractor.match.html")  # `from . import jsonstr`
    assert any(t == "extractor.match" for t, _ in _imports("extractor.pipeline.grep"))


@pytest.mark.parametrize("ext", sorted(EXTENSIONS))
def test_each_c_part_loaded_is_built_from_its_sources_as_they_are(ext: str) -> None:
    """A C part that fails to compile is left out (setup.py: optional), and an in-place build then
    keeps the copy it had, or copies an older one from build/: the tests would pass against code
    that is not the source's. The part loaded is no older than the files it is built from (its
    unity file, the folder of its parts, the shared headers), as setup.py's depends list them."""
    import importlib

    try:
        module = importlib.import_module(ext)
    except ImportError:
        pytest.skip(f"{ext} was not built")
    built = Path(module.__file__ or "")
    unity = PKG / Path(*ext.split(".")[1:]).with_suffix(".c")
    if not unity.exists() or built.parent != unity.parent:
        pytest.skip(f"{ext} is not loaded from beside its sources (an installed copy)")
    parts = unity.parent / unity.stem.lstrip("_")
    sources = [unity, *parts.glob("*.[ch]"), *(PKG / "match" / "cscan").glob("*.h")]
    newest = max(sources, key=lambda p: p.stat().st_mtime)
    assert built.stat().st_mtime >= newest.stat().st_mtime, (
        f"{built.name} is older than {newest.relative_to(PKG)}: it did not build (pip install -e . shows why)"
    )
