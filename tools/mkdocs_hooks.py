"""MkDocs hooks: the configuration reference page is generated at build time
from the schema and the config dataclasses (phrasenmt.docs_reference), so it
is never stored and cannot drift from the code."""

from mkdocs.structure.files import File

from phrasenmt.docs_reference import render

REFERENCE = "reference/configuration.md"


def on_files(files, config):
    """Add the generated reference page to the site's files."""
    files.append(File.generated(config, REFERENCE, content=render()))
    return files
