"""MkDocs hooks: the configuration reference page, docs/reference/configuration.md,
is generated from the schema and the config dataclasses (phrasenmt.docs_reference)
and committed, so that GitHub shows it and its links work there. The build stops
when the committed page differs from what the code generates now, naming the
command that regenerates it."""

from mkdocs.exceptions import PluginError

from phrasenmt.docs_reference import stale


def on_pre_build(config):
    """Refuse to build the site from a stale reference page."""
    problem = stale()
    if problem:
        raise PluginError(problem)
