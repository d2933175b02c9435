"""Sphinx configuration of fastbg's documentation (MyST Markdown pages, autodoc + numpydoc).

Build: ``pip install -e ".[docs]" && sphinx-build -W -b html docs docs/_build/html``.
fastbg must be installed (built): the API reference imports it; nothing is mocked.
"""
import fastbg

project = "fastbg"
author = "fastbg developers"
copyright = "fastbg developers"
release = fastbg.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "numpydoc",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]

# MyST: ``#`` anchors for headings down to level 3, so that page.md#section links work both
# here and on GitHub; ``{include}`` of experiments/TRAINING.md.
myst_heading_anchors = 3
myst_enable_extensions = ["deflist"]

# autodoc: the numpydoc docstrings carry the types; members in the order of the source.
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True}

# numpydoc: no generated member tables (autodoc documents the members once, under the class).
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

html_theme = "alabaster"
html_title = f"fastbg {release}"
html_static_path = []

# Code-like text in docstrings (engine="cython") keeps its straight quotes.
smartquotes = False
