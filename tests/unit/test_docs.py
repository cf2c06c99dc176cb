"""The docs say where things are; this keeps them true.

Every repository path that docs/architecture.md, docs/labs.md and docs/deployment.md name
in backticks (``app/…``, ``static/…``, ``templates/…``, ``tests/…``, ``benchmarks/…``,
``deploy/…``) exists: a renamed
or deleted file fails here, naming the document, its line and the path. A path with a
placeholder (``app/figures/labs/<id>.py``) needs its folder. And the layers table of
docs/architecture.md (the "may import from `app`" and "libraries" columns) equals
``LAYERS`` of tests/unit/test_layers.py, which is what the imports are checked against.
docs/architecture.md also names every module of ``static/js/`` (one in a subfolder with
its folder: ``labs/render.js``), and has its four recipes (a figure, a lab, a lesson
question kind, a model), each naming the files to touch: every table or type a recipe
names in backticks (``KINDS``, ``FigureEntry``) is defined in one of the files it names.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_layers import LAYERS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["docs/architecture.md", "docs/labs.md", "docs/deployment.md", "docs/lessons.md"]
PATH = re.compile(r"`((?:app|static|templates|tests|benchmarks|deploy)/[^`\s]*)`")
ROW = re.compile(r"^\| `app/([\w.]+?)(?:/|\.py)` \|")
NOTHING = "—"  # a cell that names nothing


def named_paths(text: str) -> list[tuple[int, str]]:
    """(line, path) of each backticked repository path in ``text``."""
    return [
        (number, match)
        for number, line in enumerate(text.splitlines(), start=1)
        for match in PATH.findall(line)
    ]


def missing(doc: str, text: str, root: Path = ROOT) -> list[str]:
    """``doc:line: path`` for each named path that is not in the repository at ``root``."""
    out = []
    for line, path in named_paths(text):
        fixed = path.split("<", 1)[0]  # app/figures/labs/<id>.py -> its folder must exist
        target = root / (fixed if "<" not in path else fixed.rsplit("/", 1)[0])
        if not target.exists():
            out.append(f"{doc}:{line}: `{path}` does not exist")
    return out


def _names(cell: str) -> set[str]:
    names = set(re.findall(r"`([^`]+)`", cell))
    assert names or cell.strip() == NOTHING, f"a cell names nothing in backticks: {cell!r}"
    return names


def layers_table(text: str) -> dict[str, tuple[set[str], set[str]]]:
    """package -> (app packages, libraries) from the rows of the table that has the columns."""
    table: dict[str, tuple[set[str], set[str]]] = {}
    for line in text.splitlines():
        row = ROW.match(line)
        cells = line.strip().strip("|").split(" | ")
        if row and len(cells) == 4:
            table[row.group(1)] = (_names(cells[2]), _names(cells[3]))
    return table


@pytest.mark.parametrize("doc", DOCS)
def test_every_path_the_docs_name_exists(doc: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    assert len(named_paths(text)) >= 10, f"{doc}: the paths were not found (pattern broken?)"
    gone = missing(doc, text)
    assert gone == [], "paths named by the docs are missing: rename them there too\n" + "\n".join(
        gone
    )


def test_a_renamed_path_is_reported_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "app/figures/labs").mkdir(parents=True)
    (tmp_path / "app/figures/registry.py").write_text("")
    text = (
        "See `app/figures/registry.py` and `app/figures/labs/<id>.py`.\n"
        "Figures are built in `app/figures/build.py` (`figures`), drawn by `static/js/grid.js`.\n"
    )
    assert missing("docs/x.md", text, tmp_path) == [
        "docs/x.md:2: `app/figures/build.py` does not exist",
        "docs/x.md:2: `static/js/grid.js` does not exist",
    ]


def test_the_layers_table_equals_the_layers_test() -> None:
    text = (ROOT / "docs/architecture.md").read_text(encoding="utf-8")
    documented = layers_table(text)
    enforced = {
        package: (packages - {package}, libraries)
        for package, (packages, libraries) in LAYERS.items()
    }
    lines = []
    for package in sorted(documented.keys() | enforced.keys()):
        if package not in documented:
            lines.append(f"app/{package}: in LAYERS, no row in docs/architecture.md")
        elif package not in enforced:
            lines.append(f"app/{package}: a row in docs/architecture.md, not in LAYERS")
        elif documented[package] != enforced[package]:
            (doc_app, doc_lib), (app, lib) = documented[package], enforced[package]
            lines.append(
                f"app/{package}: docs say app {sorted(doc_app)}, libraries {sorted(doc_lib)}; "
                f"LAYERS says app {sorted(app)}, libraries {sorted(lib)}"
            )
    assert lines == [], "docs/architecture.md's folders table and LAYERS differ:\n" + "\n".join(
        lines
    )


def test_the_table_reader_sees_a_changed_cell() -> None:
    row = "| `app/wire.py` | JSON | `attention`, `figures` | `numpy` |"
    assert layers_table(row) == {"wire": ({"attention", "figures"}, {"numpy"})}
    assert layers_table("| `app/paths.py` | where | — | — |") == {"paths": (set(), set())}
    with pytest.raises(AssertionError, match="names nothing"):
        layers_table("| `app/paths.py` | where | numpy | — |")


IMAGE = re.compile(r"!\[[^\]]*\]\((img/[^)\s]+\.png)\)")
MAX_IMAGE_BYTES = 200_000


def test_docs_lessons_screenshots_exist_and_are_small() -> None:
    """docs/lessons.md shows its screenshots: each PNG exists under docs/img and is small."""
    text = (ROOT / "docs/lessons.md").read_text(encoding="utf-8")
    images = IMAGE.findall(text)
    assert len(images) >= 3, "docs/lessons.md lost its screenshots (pattern broken?)"
    for name in images:
        path = ROOT / "docs" / name
        assert path.exists(), f"docs/lessons.md shows {name}, which does not exist"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{name} is not a PNG"
        assert path.stat().st_size <= MAX_IMAGE_BYTES, f"{name} is over {MAX_IMAGE_BYTES:,} bytes"


JS = ROOT / "static" / "js"
NAMES = re.compile(r"`([^`\s]+)`")


def unnamed_js_modules(text: str, root: Path = JS) -> list[str]:
    """Each module of ``static/js`` that ``text`` does not name in backticks: by its name
    at the top level (``api.js``), with its folder below it (``labs/render.js``), or by
    its whole path."""
    names = set(NAMES.findall(text))
    out = []
    for path in sorted(root.rglob("*.js")):
        module = path.relative_to(root).as_posix()
        if module not in names and f"static/js/{module}" not in names:
            out.append(module)
    return out


def test_every_js_module_is_named_in_the_architecture() -> None:
    text = (ROOT / "docs/architecture.md").read_text(encoding="utf-8")
    assert len(list(JS.rglob("*.js"))) >= 40, "the modules were not found"
    assert unnamed_js_modules(text) == [], "name these in docs/architecture.md's JS modules"


def test_an_unnamed_js_module_is_reported(tmp_path: Path) -> None:
    (tmp_path / "labs").mkdir()
    for name in ("api.js", "labs/render.js", "labs/player.js", "player.js"):
        (tmp_path / name).write_text("")
    text = "`api.js`, `labs/render.js` and `static/js/player.js`; the lab's `player.js`"
    assert unnamed_js_modules(text, tmp_path) == ["labs/player.js"]


RECIPES = ("a figure", "a lab", "a lesson question kind", "a model")
# A table, a type or a constant: ``KINDS``, ``FigureEntry``, ``Ctx`` (not ``x`` or ``build(c)``).
SYMBOL = re.compile(r"^(?:[A-Z][A-Z0-9_]{2,}|[A-Z][a-z]+[A-Za-z0-9]*)$")


def recipe(text: str, what: str) -> str:
    """The section "### Adding <what>" of ``text`` (up to the next heading), or ''."""
    found = re.search(rf"^### Adding {what}\n(.*?)(?=^##)", text + "\n##", re.M | re.S)
    return found.group(1) if found else ""


def recipe_files(section: str, root: Path = ROOT) -> list[Path]:
    """The files of the paths a recipe names (a folder, or a placeholder's folder: its
    Python and JS files)."""
    files: list[Path] = []
    for _, path in named_paths(section):
        fixed = path.split("<", 1)[0]
        target = root / (fixed.rsplit("/", 1)[0] if "<" in path else fixed)
        if target.is_dir():
            files += sorted(p for p in target.rglob("*") if p.suffix in (".py", ".js"))
        elif target.is_file():
            files.append(target)
    return files


def undefined_symbols(section: str, root: Path = ROOT) -> list[str]:
    """Each table or type ``section`` names that none of the files it names defines."""
    sources = [p.read_text(encoding="utf-8") for p in recipe_files(section, root)]
    out = []
    named = {n for n in NAMES.findall(section) if SYMBOL.match(n) and not (root / n).exists()}
    for name in sorted(named):  # (a file at the root, such as the Dockerfile, is no symbol)
        defined = re.compile(
            rf"^(?:class {name}\b|export (?:const|function|class) {name}\b|"
            rf"{name}\b(?:\s*:[^=\n]*)?\s*=)",
            re.M,
        )
        if not any(defined.search(source) for source in sources):
            out.append(name)
    return out


@pytest.mark.parametrize("what", RECIPES)
def test_each_recipe_names_files_that_define_what_it_names(what: str) -> None:
    section = recipe((ROOT / "docs/architecture.md").read_text(encoding="utf-8"), what)
    assert section, f"docs/architecture.md has no recipe '### Adding {what}'"
    assert len(named_paths(section)) >= 3, f"the recipe for {what} names too few files"
    assert undefined_symbols(section) == [], (
        f"the recipe for {what} names these, and none of its files defines them"
    )


def test_a_renamed_table_is_caught(tmp_path: Path) -> None:
    (tmp_path / "app/lessons").mkdir(parents=True)
    (tmp_path / "app/lessons/kinds.py").write_text("KINDS: dict = {}\nclass QuestionKind:\n")
    text = "### Adding a kind\n`QuestionKind` in `KINDS` and `STARTS` (`app/lessons/kinds.py`)\n"
    section = recipe(text, "a kind")
    assert recipe_files(section, tmp_path) == [tmp_path / "app/lessons/kinds.py"]
    assert undefined_symbols(section, tmp_path) == ["STARTS"]
