"""The synthetic English–German corpus: a seeded synchronous grammar.

`lexicon*` hold the words, `tree` the bilingual syntax trees, `phrases`,
`clause`, `arguments` and `german` the grammar, `documents` the documents with
cross-sentence pronouns, `lingeval` the contrastive agreement items, and
`corpus` the generator's command line (`python -m phrasenmt.synthetic`).
"""
