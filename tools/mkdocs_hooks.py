"""MkDocs hooks: the configuration reference page, docs/reference/configuration.md,
is generated from the schema and the config dataclasses (phrasenmt.docs_reference)
and committed, so that GitHub shows it and its links work there. The build stops
when the committed page differs from what the code generates now, naming the
command that regenerates it.

The command reference, cli.md, is generated from every command's `--help`
(phrasenmt.docs_cli) at each build and added to the site without being stored:
the commands' help changes with the code, and the page shows it as it is."""

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from phrasenmt import docs_cli
from phrasenmt.docs_reference import stale


def on_pre_build(config):
    """Refuse to build the site from a stale reference page."""
    problem = stale()
    if problem:
        raise PluginError(problem)


def on_files(files, config):
    """Add the generated command reference to the site's files."""
    files.append(File.generated(config, docs_cli.PAGE, content=docs_cli.render()))
    return files
