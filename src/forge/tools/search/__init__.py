"""Ranked tool search: lexical and semantic candidates re-ranked by a small linear model.

Two BM25 indexes and one table of embeddings are kept per registry and updated tool by tool
(``_corpus``, ``_postings``: after a change only the tools not seen before are tokenized and
embedded, and every version ranks exactly as an index built from scratch would):

* **fields**: fields weighted by repetition (the name four times, the description, display
  name and tags twice, the category and the parameters' names, descriptions and enum values
  once), names split on snake_case, kebab-case, camelCase and dots, stop words (including the
  polite words of chat requests), numbers and single letters dropped, plurals folded
  (k1 = 1.2, b = 0.5). Terms are letters and digits of any script, NFKC- and case-folded with
  accents stripped; Chinese and Japanese runs become character pairs (``_tokens``). It
  picks the lexical candidates: the best ``max(60, limit)`` tools that share a term with the
  query.
* **whole definition**: every word of the name, display name, tags, description and JSON
  parameter schema, none dropped, with a light suffix-stripping stemmer (k1 = 0.9, b = 0.5).
* **embeddings**: each tool's name (spelled out), description and parameter text (names,
  descriptions, enum values) as a static WordLlama vector (``_embedding``). The 20 tools
  nearest to the query join the candidates when their cosine similarity is at least half the
  nearest one's, and at least 0.2 while some tool shares a term with the query. So a tool is
  found by meaning ("100 euro in US dollars" -> ``convert_currency``) even when no tool shares
  a word with the query, and a query with no term in common with any tool, or made only of stop
  words, still gets the tools nearest in meaning: no question finds nothing while the registry
  (after the filters) has tools (a blank query, without any letter or digit, finds nothing).

Each candidate is then scored by a weighted sum of generic features: its whole-definition
BM25 score (relative to the best candidate), the share of its name's terms found in the query,
the IDF-weighted share of the query's terms found anywhere in it, the shares of the query found
in its description and of its description found in the query, the share of its parameter
names mentioned, the share of its name's adjacent term pairs that appear adjacently in the
query, and its cosine similarity to the query, raw and relative to the other candidates. Ties
keep registration order.

A request of several steps (cut at line breaks, semicolons, numbered steps and sequencing
words such as "then", "after that", "finally", in several languages; ``_intents``) is also
searched step by step: the whole request's three best tools come first, then each step's best,
the toolkit mates of the rankings' best tools and the whole request's next in turn, so the
generic tools a task needs (look up a code, write a file) join the topical one. A tool among
the first three that needs an entity's id brings the tool that finds the entity, unless the
request gives the id (``_together``).

An optional stronger `Embedding` (``MINILM``: all-MiniLM-L6-v2, the ``minilm`` extra;
``_embeddings``) can rank beside the static one: its 20 nearest tools join the candidates
(same rule) and its cosine, raw and relative, joins the features (``EMBEDDING_FEATURES``),
scored by a weight vector of its own; the default ranking and ``WEIGHTS`` are untouched.

The weights were fitted by ``bench/fit_search.py`` on two kinds of development data, each
source weighing the same in the loss (BFCL three times): BFCL's single-intent
``simple_python``, ``live_simple``, ``simple_java``, ``simple_javascript``, ``parallel`` and
``live_parallel`` categories, and the development sets of the retrieval collection in
``corpora/retrieval/`` (Seal-Tools, MetaTool, ToolBench). BFCL's measured ``multiple`` and
``live_multiple`` (``bench/bench_search.py``) and the held-out retrieval sets took no part. No
feature refers to a particular tool, word or dataset.
"""

from __future__ import annotations

import json
import marshal
import math
from collections.abc import Callable, Sequence
from itertools import chain, pairwise
from typing import TYPE_CHECKING, Any, NamedTuple

from forge.tools.search._corpus import Corpus, Parts, Snapshot, corpus_for
from forge.tools.search._embeddings import (
    EMBEDDING_FEATURES,
    MINILM,
    Embedding,
    resolve_embedding,
)
from forge.tools.search._glosses import glosses
from forge.tools.search._intents import interleave, parts
from forge.tools.search._postings import Joined
from forge.tools.search._together import (
    Toolkits,
    finders,
    id_given,
    needed_entities,
    required_parameters,
    toolkit_key,
    toolkit_mates,
    toolkits,
)
from forge.tools.search._tokens import (
    identifier_terms,
    split_identifier,
    terms_and_words,
    tokenize,
    words,
)
from forge.tools.values.categories import ToolCategory

if TYPE_CHECKING:
    from forge.tools.model.tool import Tool

__all__ = [
    "EMBEDDING_FEATURES",
    "FEATURES",
    "MINILM",
    "Embedding",
    "RELEVANT_COSINE",
    "RELEVANT_COVERAGE",
    "SearchIndex",
    "WEIGHTS",
    "corpus_for",
    "resolve_embedding",
    "tokenize",
    "words",
]

K1 = 1.2
B = 0.5
WHOLE_K1 = 0.9
WHOLE_B = 0.5
CANDIDATES = 60
SEMANTIC_CANDIDATES = 20
#: A tool joins the candidates by meaning alone when its cosine similarity to the query is at
#: least ``SEMANTIC_FLOOR`` and at least ``SEMANTIC_SHARE`` of the nearest tool's.
SEMANTIC_FLOOR = 0.2
SEMANTIC_SHARE = 0.5
#: The optional embedding's vectors of this many recent queries are kept per index.
QUERIES_KEPT = 16
#: In a request of several steps, the whole request's best tools that come before any step's.
WHOLE_FIRST = 3
#: How deep each ranking of a request and of its steps is read for toolkit mates.
DEPTH = 30
#: The toolkits of each ranking's first ``TOOLKIT_HEADS`` tools join a multi-step request's merge.
TOOLKIT_HEADS = 2
#: The first ``FINDER_HEADS`` results bring the tools that find the entities whose ids they need.
FINDER_HEADS = 3
#: With ``relevant_only``, a query finds nothing unless some candidate covers at least
#: ``RELEVANT_COVERAGE`` of its terms (IDF-weighted) or is at least ``RELEVANT_COSINE`` near it
#: in meaning. Set on the development retrieval sets to drop at most 0.5 % of the gold tools
#: ranked in the top 10 (``bench/eval_relevance.py``).
RELEVANT_COVERAGE = 0.06
RELEVANT_COSINE = 0.45
FEATURES = (
    "whole_bm25",
    "name_coverage",
    "query_coverage_idf",
    "query_in_description",
    "description_in_query",
    "parameters_mentioned",
    "name_pairs_in_query",
    "semantic",
    "semantic_relative",
)
#: Weights of ``FEATURES``, fitted by ``bench/fit_search.py`` on the development categories.
WEIGHTS = (1.55, 1.93, 3.72, 0.84, 2.29, 0.42, 0.44, 2.24, 2.85)
_FIELD_WEIGHTS = {
    "name": 4,
    "display_name": 2,
    "tags": 2,
    "description": 2,
    "category": 1,
    "params": 1,
}


def _glossed_terms(description: str) -> list[str]:
    """The terms of a description's English glosses (`_glosses`): a description with Chinese
    words is found by a request in English, and by one in Chinese through its own glosses."""
    return [] if description.isascii() else tokenize(glosses(description))


def _fields(tool: Tool, parameters: str) -> dict[str, list[str]]:
    """The terms of each weighted field, given the tool's ``_parameter_text``."""
    meta = tool.metadata
    texts = {
        "name": tool.name,
        "display_name": meta.display_name or "",
        "tags": " ".join(meta.tags),
        "description": tool.description,
        "category": meta.category.value,
        "params": parameters,
    }
    fields = {key: tokenize(text) for key, text in texts.items()}
    fields["description"] += _glossed_terms(tool.description)
    return fields


def _document(tool: Tool, fields: dict[str, list[str]] | None = None) -> list[str]:
    """The weighted-field BM25 document: each field's terms repeated by its weight."""
    if fields is None:
        fields = _fields(tool, _parameter_text(tool))
    doc: list[str] = []
    for key, terms in fields.items():
        doc.extend(terms * _FIELD_WEIGHTS[key])
    return doc


def _semantic_text(tool: Tool, parameters: str | None = None) -> str:
    """The text a tool's embedding is made of: its name spelled out, its description, then
    its parameters' names, descriptions and enum values (``_parameter_text``)."""
    name = split_identifier(tool.name).replace(".", " ")
    if parameters is None:
        parameters = _parameter_text(tool)
    return f"{name}. {tool.description} {parameters}".strip()


def _whole_document(tool: Tool) -> list[str]:
    meta = tool.metadata
    texts = (tool.name, meta.display_name or "", " ".join(meta.tags), tool.description)
    return words(" ".join((*texts, _schema_text(tool))))


def _schema(tool: Tool) -> Any:
    """The schema a tool advertises, the same before and after it is compiled: a schema-only
    tool's own (not compiled for it), a function tool's built without its validator when its
    types allow (`Tool.parameters`)."""
    from forge.tools.schema import SchemaSource

    compiled = tool._compiled
    if compiled is not None:
        return compiled.parameters
    if isinstance(tool.source, SchemaSource):
        return tool.source.schema
    return tool.parameters


def _schema_text(tool: Tool) -> str:
    """The JSON parameter schema (`_schema`)."""
    try:
        return json.dumps(_schema(tool), default=str)
    except Exception:  # a tool whose schema cannot be built is still searchable by name
        return _signature_text(tool)


def _parameter_names(tool: Tool) -> list[str]:
    try:
        properties = _schema(tool).get("properties")
    except Exception:  # a tool whose schema cannot be built is still searchable by name
        return _signature(tool)[0]
    return [str(name) for name in properties] if isinstance(properties, dict) else []


def _required_names(tool: Tool) -> list[str]:
    """The names of the parameters a call must give (`_schema`)."""
    try:
        return required_parameters(_schema(tool))
    except Exception:  # a tool whose schema cannot be built is still searchable by name
        return _signature(tool)[1]


def _parameter_text(tool: Tool) -> str:
    """Parameter names, descriptions and enum values (`_schema`)."""
    try:
        schema: Any = _schema(tool)
    except Exception:  # a tool whose schema cannot be built is still searchable by name
        return _signature_text(tool)
    return " ".join(_schema_words(schema, 0, []))


def _signature(tool: Tool) -> tuple[list[str], list[str]]:
    """A function tool's parameter names and required ones, read from its signature alone:
    what is searchable of a tool whose schema cannot be built."""
    from forge.tools.schema import FunctionSource

    source = tool.source
    if not isinstance(source, FunctionSource):
        return [], []
    import inspect

    try:
        parameters = inspect.signature(source.fn).parameters
    except (TypeError, ValueError):
        return [], []
    names = list(parameters)
    required = [
        name
        for name, p in parameters.items()
        if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    return names, required


def _signature_text(tool: Tool) -> str:
    from forge.tools.schema import FunctionSource

    source = tool.source
    descriptions = source.param_descriptions.values() if isinstance(source, FunctionSource) else ()
    return " ".join([*_signature(tool)[0], *descriptions])


def _schema_words(node: Any, depth: int, out: list[str]) -> list[str]:
    """Append the names, descriptions and enum values of ``node``'s properties, nested ones
    after their parent, to ``out`` (one list for the whole walk: no generator per level)."""
    if not isinstance(node, dict) or depth > 4:
        return out
    properties = node.get("properties")
    for name, prop in (properties if isinstance(properties, dict) else {}).items():
        out.append(str(name))
        if not isinstance(prop, dict):
            continue
        if isinstance(prop.get("description"), str):
            out.append(prop["description"])
        if isinstance(prop.get("enum"), list):
            out.extend(v for v in prop["enum"] if isinstance(v, str))
        _schema_words(prop, depth + 1, out)
        _schema_words(prop.get("items"), depth + 1, out)
    return out


class _Profile(NamedTuple):
    """The term sets of one tool that the re-ranking features compare with a query."""

    name: frozenset[str]
    name_pairs: frozenset[tuple[str, str]]
    description: frozenset[str]
    parameters: frozenset[str]
    terms: frozenset[str]
    kit: str | None
    """Its toolkit's name prefix (`_together.toolkit_key`), if its name has one."""


def _profile(tool: Tool, document: list[str], fields: dict[str, list[str]]) -> _Profile:
    """The profile of a tool from its BM25 document and its fields' terms (`_fields`)."""
    name = tuple(fields["name"])
    return _Profile(
        name=frozenset(name),
        name_pairs=frozenset(pairwise(name)),
        description=frozenset(fields["description"]),
        parameters=frozenset(chain.from_iterable(map(identifier_terms, _parameter_names(tool)))),
        terms=frozenset(document),
        kit=toolkit_key(tool.name, tool.metadata.display_name),
    )


class _Shared(NamedTuple):
    """What tools with the same texts but their names share (`_parts`)."""

    document: list[str]
    """The weighted-field terms after the name's."""
    whole: list[str] | None
    """The whole-definition words after the name's (``None``: not ASCII, split whole)."""
    description: frozenset[str]
    terms: list[str]
    """The terms of ``document`` without the weights' repeats, in order."""
    tail: str
    """The semantic text after the name (`_semantic_text`): description and parameter text."""
    clean: bool
    """Whether ``tail`` ends in something other than whitespace."""


def _shared(texts: tuple[str, str, str, str, str, str]) -> _Shared:
    """The `_Shared` parts of a tool's texts other than its name (as `_fields`,
    `_whole_document` and `_semantic_text` split them): display name, tags, description,
    category, parameter text and schema text."""
    display, tags, description, category, parameters, schema = texts
    (display_terms, display_words), (tag_terms, tag_words), (description_terms, spelled) = map(
        terms_and_words, (display, tags, description)
    )
    description_terms += _glossed_terms(description)
    fields = {
        "display_name": display_terms,
        "tags": tag_terms,
        "description": description_terms,
        "category": tokenize(category),
        "params": tokenize(parameters),
    }
    document: list[str] = []
    for key, terms in fields.items():
        document.extend(terms * _FIELD_WEIGHTS[key])
    whole = None
    if display.isascii() and tags.isascii() and description.isascii() and schema.isascii():
        # ASCII words never span a space: the words of the texts joined by spaces are each
        # text's words in turn, after the name's.
        whole = [*display_words, *tag_words, *spelled, *words(schema)]
    tail = f"{description} {parameters}"
    return _Shared(document, whole, frozenset(description_terms),
                   list(chain.from_iterable(fields.values())), tail,
                   not tail[-1].isspace())  # fmt: skip


class _SchemaReader:
    """`_parameter_text`, `_parameter_names` and `_schema_text` of the tools of one batch,
    each schema read once.

    A schema equal to one already read with the same JSON text is not walked again: equal
    schemas written out alike hold the same types where the walk looks (a tuple is not equal
    to a list, nor ``True`` to ``"true"``), so they give the same texts. A schema of builtin
    types only whose `marshal` bytes are those of one already read is neither written out nor
    walked: the bytes spell every type, value and key order exactly, so it is the same in all
    that matters, and `marshal` is several times faster than the JSON encoder.
    """

    def __init__(self) -> None:
        from forge.tools.schema import SchemaSource

        self._schema = SchemaSource
        self._encoder = json.JSONEncoder(default=str)  # json.dumps(..., default=str)
        self._read: dict[str, tuple[Any, str, list[str]]] = {}
        self._packed: dict[bytes, tuple[str, list[str], str]] = {}

    def texts(self, tool: Tool) -> tuple[str, list[str], str]:
        """The tool's parameter text, parameter names and schema text."""
        source = tool.source
        if tool._compiled is None and isinstance(source, self._schema):
            schema: Any = source.schema
        else:
            try:
                schema = _schema(tool)
            except Exception:  # a tool whose schema cannot be built is still searchable by name
                text = _signature_text(tool)
                return text, _signature(tool)[0], text
        try:
            packed: bytes | None = marshal.dumps(schema, 2)  # 2: no back-references
        except Exception:  # not builtin types only: compared by its JSON text alone
            packed = None
        found = self._packed.get(packed) if packed is not None else None
        if found is None:
            found = self._texts(schema)
            if packed is not None:
                self._packed[packed] = found
        return found

    def _texts(self, schema: Any) -> tuple[str, list[str], str]:
        try:
            text = self._encoder.encode(schema)
        except Exception:  # a schema that cannot be written out is still searchable by name
            text = ""
        known = self._read.get(text) if text else None
        if known is not None and _same(known[0], schema):
            return known[1], known[2], text
        parameters = " ".join(_schema_words(schema, 0, []))
        try:
            properties = schema.get("properties")
        except Exception:  # not a mapping: no parameter names
            properties = None
        names = [str(name) for name in properties] if isinstance(properties, dict) else []
        if text:
            self._read[text] = (schema, parameters, names)
        return parameters, names, text


def _same(one: Any, other: Any) -> bool:
    """Whether two schemas are equal (not when comparing them fails)."""
    try:
        return one is other or bool(one == other)
    except Exception:  # values that cannot be compared (arrays): read the schema again
        return False


def _parts(tools: list[Tool]) -> list[Parts]:
    """What the index keeps of each tool (`Parts`), the embeddings computed in one batch.

    Tools whose texts other than the name are the same (copies, versions and variants of a
    tool) split those texts once (`_shared`), and so do tools with the same parameter names;
    each tool's parts are exactly those `_fields`, `_document`, `_whole_document`,
    `_semantic_text` and `_profile` give it alone.
    """
    from forge.tools.search._embedding import embed_joined

    reader = _SchemaReader()
    shared: dict[tuple[str, str, str, str, str, str], _Shared] = {}
    parameter_terms: dict[tuple[str, ...], frozenset[str]] = {}
    # The term sets of a name's terms, and of a name's terms with shared texts' (copies of a
    # tool under new names often have the same terms): one object each, less to collect.
    name_sets: dict[tuple[str, ...], tuple[frozenset[str], frozenset[tuple[str, str]]]] = {}
    term_sets: dict[tuple[int, tuple[str, ...]], frozenset[str]] = {}
    texts: list[str | tuple[str, str]] = []
    made = []
    for tool in tools:
        parameters, names, schema = reader.texts(tool)
        meta = tool.metadata
        display = meta.display_name
        key = (display or "", " ".join(meta.tags), tool.description, meta.category.value,
               parameters, schema)  # fmt: skip
        same = shared.get(key)
        if same is None:
            same = shared[key] = _shared(key)
        name = tool.name
        # Both documents as the name's terms then the tail the tools with these texts share.
        if same.whole is not None and name.isascii():
            name_terms, name_words = terms_and_words(name)
            whole: Sequence[str] = (
                Joined(name_words, same.whole) if name_words or same.whole else ["_"]
            )
        else:
            name_terms = tokenize(name)
            whole = words(" ".join((name, *key[:3], schema))) or ["_"]
        document: Sequence[str] = (
            Joined(name_terms, same.document, _FIELD_WEIGHTS["name"])
            if name_terms or same.document
            else ["_"]
        )
        named = tuple(names)
        terms = parameter_terms.get(named)
        if terms is None:
            terms = parameter_terms[named] = frozenset(
                chain.from_iterable(map(identifier_terms, named))
            )
        name_key = tuple(name_terms)
        sets = name_sets.get(name_key)
        if sets is None:
            sets = name_sets[name_key] = (frozenset(name_key), frozenset(pairwise(name_key)))
        found = term_sets.get((id(same), name_key))
        if found is None:
            # The terms added as ``frozenset(document)`` adds them (the name's first), so the
            # set iterates in the same order: a feature sums floats over it.
            found = term_sets[id(same), name_key] = frozenset(chain(name_key, same.terms))
        # name, name pairs, description, parameters, terms, kit (positional: a little faster)
        profile = _Profile(*sets, same.description, terms, found, toolkit_key(name, display))
        made.append((document, whole, profile))
        # The semantic text (`_semantic_text`) as its head and the tail it shares, unless
        # stripping the joined text would change it.
        head = split_identifier(name).replace(".", " ") + "."
        if same.clean and not head[0].isspace():
            texts.append((head, same.tail))
        else:
            texts.append(f"{head} {same.tail}".strip())
    vectors = embed_joined(texts)
    return [Parts(fields, whole, vector, profile)
            for (fields, whole, profile), vector in zip(made, vectors, strict=True)]  # fmt: skip


def _sentence_parts(embedding: Embedding) -> Callable[[list[Tool]], list[Parts]]:
    """What an `Embedding`'s corpus keeps of each tool: its vector of ``_semantic_text``."""

    def parts(tools: list[Tool]) -> list[Parts]:
        vectors = embedding.vectors([_semantic_text(t) for t in tools])
        return [Parts(["_"], ["_"], vector, None) for vector in vectors]

    return parts


class SearchIndex:
    """BM25 and embedding candidates over a fixed list of tools, re-ranked by ``WEIGHTS``.

    With an ``embedding`` (`Embedding`, such as ``MINILM``) its nearest tools join the
    candidates and its cosine joins the features (``EMBEDDING_FEATURES``), scored by the
    embedding's own weights; ``embedding_corpus`` keeps its vectors across versions as
    ``corpus`` keeps the rest.
    """

    def __init__(
        self,
        tools: Sequence[Tool],
        *,
        corpus: Corpus | None = None,
        embedding: Embedding | None = None,
        embedding_corpus: Corpus | None = None,
    ) -> None:
        """Index ``tools``; with a kept ``corpus``, compute only the tools it has not seen."""
        self._tools = list(tools)
        self._embedding = embedding
        self._weights = WEIGHTS if embedding is None else embedding.weights
        self._sentences: Snapshot | None = None
        self._asked: dict[str, Any] = {}  # the last queries' vectors of the embedding
        if embedding is not None:
            store = embedding_corpus or Corpus(dimensions=embedding.dimensions)
            self._sentences = store.snapshot(self._tools, _sentence_parts(embedding))
        self._retriever: Any = None
        self._whole: Any = None
        self._masks: dict[tuple[Any, ...], Any] = {}
        self._profiles: Sequence[_Profile] = []
        self._df: Any = {}
        self._snapshot: Snapshot | None = None
        self._kits: Toolkits | None = None
        self._entity_needs: dict[int, list[tuple[str, ...]]] = {}
        self._finder_ranks: dict[tuple[Any, ...], list[int]] = {}
        if self._tools:
            self._snapshot = snapshot = (corpus if corpus is not None else Corpus()).snapshot(
                self._tools, _parts
            )
            self._retriever = snapshot.bm25("fields", K1, B)
            self._whole = snapshot.bm25("whole", WHOLE_K1, WHOLE_B)
            self._profiles = snapshot.profiles
            self._df = self._retriever  # document frequencies of the weighted-field terms
        elif corpus is not None:
            corpus.snapshot(self._tools, _parts)  # lets the corpus drop the tools that left

    @property
    def _vectors(self) -> Any:
        """The tools' embeddings, one row per tool in order (``None`` without tools)."""
        return self._snapshot.vectors if self._snapshot is not None else None

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        category: ToolCategory | None = None,
        tags: Sequence[str] = (),
        relevant_only: bool = False,
    ) -> list[Tool]:
        """Return up to ``limit`` matching tools, best first; ties keep registration order.

        A request of several steps (``_intents.parts``) keeps the whole request's
        ``WHOLE_FIRST`` best tools first, then takes each step's best, the toolkit mates of
        the rankings' ``TOOLKIT_HEADS`` best and the whole request's next in turn, so the
        tools every step needs are near the top. The tools that find the entities whose ids
        the first ``FINDER_HEADS`` need take the last places (``_together``).

        The ranking always has tools while the registry does; with ``relevant_only`` a query
        no tool is relevant to (`is_relevant`) finds nothing instead.
        """
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        if relevant_only and not self.is_relevant(query, category=category, tags=tags):
            return []
        depth = max(limit, DEPTH)
        whole = self._rank(query, depth, category, tags)
        steps = parts(query, lambda part: bool(tokenize(part)))
        top = whole[:limit]
        if len(steps) > 1:
            ranked = [self._rank(step, depth, category, tags) for step in steps]
            rankings = [whole[WHOLE_FIRST:limit], *(r[:limit] for r in ranked)]
            mates = toolkit_mates(self._toolkits(), [whole, *ranked], TOOLKIT_HEADS)
            if mates:
                rankings.insert(1, mates)
            first = whole[: min(WHOLE_FIRST, limit)]
            top = first + interleave(rankings, limit, skip=first)
        found = [j for j in self._finders(query, top[:FINDER_HEADS], depth, category, tags)
                 if j not in top][: limit - 1]  # fmt: skip
        if found:
            top = top[: limit - len(found)] + found
        return [self._tools[i] for i in top]

    def _finders(
        self,
        query: str,
        top: list[int],
        depth: int,
        category: ToolCategory | None,
        tags: Sequence[str],
    ) -> list[int]:
        """The tools that find the entities whose ids ``top`` needs and the query does not
        give (``_together.finders``); of the needing tool's toolkit when it has one."""

        def fits(needing: int, finder: int, entity: tuple[str, ...]) -> bool:
            keys = self._toolkits().keys  # only once some tool needs an id
            kit = keys[needing]
            return (
                set(entity) <= self._profiles[finder].name
                and (kit is None or keys[finder] == kit)
                and not id_given(query, entity)
            )

        def rank(text: str) -> list[int]:  # the same for every request: kept
            key = (text, depth, category, tuple(tags))
            ranked = self._finder_ranks.get(key)
            if ranked is None:
                ranked = self._finder_ranks[key] = self._rank(text, depth, category, tags)
            return ranked

        return finders(top, self._needs, fits, rank)

    def _toolkits(self) -> Toolkits:
        """The tools' toolkits (``_together.toolkits``), found on first need."""
        if self._kits is None:
            self._kits = toolkits([p.kit for p in self._profiles])
        return self._kits

    def _needs(self, i: int) -> list[tuple[str, ...]]:
        """The entities whose ids tool ``i`` needs (``_together.needed_entities``), kept."""
        needs = self._entity_needs.get(i)
        if needs is None:
            tool = self._tools[i]
            needs = self._entity_needs[i] = needed_entities(tool, _required_names(tool))
        return needs

    def is_relevant(
        self, query: str, *, category: ToolCategory | None = None, tags: Sequence[str] = ()
    ) -> bool:
        """Whether some tool is relevant to ``query``, not just the nearest of unrelated ones.

        A candidate must share enough of the query's weighted terms (``RELEVANT_COVERAGE``)
        or be near enough in meaning (``RELEVANT_COSINE``); both are absolute, unlike the
        ranking's relative features, so the answer does not hang on the other tools. A
        Chinese request is also read as the first English sense of each of its words alone:
        against tools described in English, its Chinese words and further senses would only
        dilute the share of its terms a tool covers.
        """
        extra = glosses(query, senses=1)  # English alone: it has no glosses of its own
        for text in [query, extra] if extra else [query]:
            _, features = self.candidates(text, category=category, tags=tags)
            if not len(features):
                continue
            coverage = features[:, FEATURES.index("query_coverage_idf")]
            cosine = features[:, FEATURES.index("semantic")]
            if (coverage >= RELEVANT_COVERAGE).any() or (cosine >= RELEVANT_COSINE).any():
                return True
        return False

    def _rank(
        self, query: str, limit: int, category: ToolCategory | None, tags: Sequence[str]
    ) -> list[int]:
        """The positions of the best ``limit`` candidates, best first."""
        import numpy as np

        candidates, features = self.candidates(query, limit, category=category, tags=tags)
        if not len(candidates):
            return []
        order = np.lexsort((candidates, -(features @ np.asarray(self._weights))))
        return [int(i) for i in candidates[order][:limit]]

    def candidates(
        self,
        query: str,
        limit: int = 10,
        *,
        category: ToolCategory | None = None,
        tags: Sequence[str] = (),
    ) -> tuple[Any, Any]:
        """The candidate tool positions for a query and their feature rows (``FEATURES``); a
        Chinese query's English glosses (``_glosses``) join it."""
        import numpy as np

        extra = glosses(query)
        if extra:  # tools described in English match a Chinese request's English words
            query = f"{query} {extra}"
        terms = tokenize(query)
        width = len(FEATURES) + (len(EMBEDDING_FEATURES) if self._embedding is not None else 0)
        none = np.zeros(0, dtype=np.int64), np.zeros((0, width))
        spelled = words(query)
        if self._retriever is None or not spelled:  # no letter or digit: no question
            return none
        mask = self._mask(category, tuple(tags)) if category is not None or tags else None
        candidates = self._lexical(terms, mask, max(CANDIDATES, limit))
        from forge.tools.search._embedding import embed

        cosine = self._similarity(embed([query])[0])
        floor = len(candidates) > 0
        # Tools found by meaning join whether or not any tool shares a word with the query:
        # otherwise whether one is found would hang on some unrelated tool's vocabulary.
        candidates = np.union1d(candidates, self._nearest(cosine, mask, floor=floor))
        sentence = None
        if self._embedding is not None and self._sentences is not None:
            sentence = self._sentences.similarity(self._query_vector(self._embedding, query))
            candidates = np.union1d(candidates, self._nearest(sentence, mask, floor=floor))
        if not len(candidates):
            return none
        rows = self._features(spelled, terms, candidates, cosine[candidates])
        if sentence is None:
            return candidates, rows
        return candidates, np.hstack((rows, _closeness(sentence[candidates])))

    def _query_vector(self, embedding: Embedding, query: str) -> Any:
        """``embedding``'s vector of ``query``, kept for the next few queries: a search with
        ``relevant_only`` asks for the same query's candidates twice."""
        vector = self._asked.get(query)
        if vector is None:
            if len(self._asked) >= QUERIES_KEPT:
                self._asked.clear()
            vector = self._asked[query] = embedding.vectors([query])[0]
        return vector

    def _lexical(self, terms: list[str], mask: Any, pool: int) -> Any:
        """The best ``pool`` tools sharing a term with the query (weighted-field BM25)."""
        import numpy as np

        if not terms:
            return np.zeros(0, dtype=np.int64)
        scores = self._retriever.get_scores(terms)
        keep = scores > 0
        if mask is not None:
            keep &= mask
        candidates = np.flatnonzero(keep)
        if len(candidates) > pool:
            best = np.argpartition(-scores[candidates], pool - 1)[:pool]
            candidates = candidates[best]
        return candidates

    def _similarity(self, vector: Any) -> Any:
        """Each tool's cosine similarity to a unit-length ``vector``, in order."""
        import numpy as np

        snapshot = self._snapshot
        return snapshot.similarity(vector) if snapshot is not None else np.zeros(0)

    @staticmethod
    def _nearest(similarity: Any, mask: Any, *, floor: bool) -> Any:
        """The tools that join the candidates by meaning alone (``SEMANTIC_*``).

        Without ``floor`` (no tool shares a term with the query) only the relative share
        applies, so the nearest tool always joins: a query never finds nothing while the
        registry has tools that pass the filters.
        """
        import numpy as np

        if mask is None:
            allowed = similarity
        elif not mask.any():
            return np.zeros(0, dtype=np.int64)
        else:
            allowed = np.where(mask, similarity, -np.inf)
        count = min(SEMANTIC_CANDIDATES, int(np.count_nonzero(np.isfinite(allowed))))
        nearest = np.argpartition(-allowed, count - 1)[:count]
        best = float(allowed[nearest].max())
        least = SEMANTIC_SHARE * best if best > 0 else -np.inf
        if floor:
            least = max(SEMANTIC_FLOOR, least)
        return nearest[allowed[nearest] >= least]

    def _features(
        self, spelled: list[str], terms: list[str], candidates: Any, similarity: Any
    ) -> Any:
        import numpy as np

        asked = set(terms)
        pairs = set(pairwise(terms))
        size = len(self._tools)
        idf = {t: math.log(1 + (size - (n := self._df.get(t, 0)) + 0.5) / (n + 0.5)) for t in asked}
        idf_total = sum(idf.values()) or 1.0
        whole = (
            self._whole.get_scores(spelled)[candidates] if spelled else np.zeros(len(candidates))
        )
        rows = np.zeros((len(candidates), len(FEATURES)))
        rows[:, 0] = whole / whole.max() if whole.max() > 0 else 0.0
        for row, i in zip(rows, candidates, strict=True):
            p = self._profiles[i]
            found = asked & p.terms
            row[1] = len(asked & p.name) / len(p.name) if p.name else 0.0
            row[2] = sum(idf[t] for t in found) / idf_total
            row[3] = len(asked & p.description) / len(asked) if asked else 0.0
            row[4] = len(asked & p.description) / len(p.description) if p.description else 0.0
            row[5] = len(asked & p.parameters) / len(p.parameters) if p.parameters else 0.0
            row[6] = len(pairs & p.name_pairs) / len(p.name_pairs) if p.name_pairs else 0.0
        spread = similarity.max() - similarity.min()
        rows[:, 7] = np.clip(similarity, 0.0, 1.0)
        rows[:, 8] = (similarity - similarity.min()) / spread if spread > 0 else 0.0
        return rows

    def _mask(self, category: ToolCategory | None, tags: tuple[str, ...]) -> Any:
        import numpy as np

        key = (category, tags)
        mask = self._masks.get(key)
        if mask is None:
            mask = self._masks[key] = np.fromiter(
                (
                    (category is None or t.metadata.category is category)
                    and all(tag in t.metadata.tags for tag in tags)
                    for t in self._tools
                ),
                dtype=bool,
                count=len(self._tools),
            )
        return mask


def _closeness(similarity: Any) -> Any:
    """The candidates' cosine similarities as two feature columns: clipped, and rescaled to
    the candidates' range (the static embedding's last two features, for another model)."""
    import numpy as np

    spread = similarity.max() - similarity.min()
    relative = (similarity - similarity.min()) / spread if spread > 0 else 0.0 * similarity
    return np.column_stack((np.clip(similarity, 0.0, 1.0), relative))
