"""The synthetic English–German corpus: a seeded synchronous grammar.

`lexicon*` hold the words, `tree` the bilingual syntax trees, `builder` the
grammar's rates and per-sentence state, `phrases` (noun and prepositional
phrases), `clause` (a clause's parts and German word order), `arguments`
(building a clause) and `german` the grammar, `documents` the documents with
cross-sentence pronouns, `lingeval` the contrastive agreement items, and
`corpus` the generator's command line (`python -m phrasenmt.synthetic`).
"""
